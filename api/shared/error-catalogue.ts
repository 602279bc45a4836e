// The one way an error catalogue is built, for every wire format (problem+json, ACP, UCP): each entry has
// a stable code (its key), a status, a documented meaning, and optionally a message template and whether
// an unexpected error's own message may be shown. Framework failures map onto each catalogue by kind.

export interface CatalogueEntry {
  status: number;
  /** Shown in docs/errors.md (a test keeps them in sync). */
  description: string;
  /** The message this code is sent with; `{name}` placeholders are filled from the error's parameters. */
  message?: string;
  /** False when an unexpected error's own message must not reach the client; the template stands in. */
  expose?: boolean;
}

/** What the framework itself can fail with, before or around a handler (see framework-errors.ts). */
export const frameworkErrorKinds = [
  'invalid_request',
  'malformed_body',
  'payload_too_large',
  'unsupported_media_type',
  'route_not_found',
  'method_not_allowed',
  'uri_too_long',
  'request_timeout',
  'header_fields_too_large',
  'internal_error',
  'service_unavailable',
  'shutting_down',
] as const;
export type FrameworkErrorKind = (typeof frameworkErrorKinds)[number];

type Entries = Record<string, CatalogueEntry>;
type Code<E extends Entries> = keyof E & string;

/** Each kind answers with the code of the same name unless the catalogue names another. */
export type FrameworkCodes<E extends Entries> = { [K in Exclude<FrameworkErrorKind, keyof E>]: Code<E> } & {
  [K in FrameworkErrorKind]?: Code<E>;
};

/** A catalogue's entries by code, and the code each framework failure is answered with. */
export interface ErrorCatalogue<C extends string = string> {
  entries: Readonly<Record<C, CatalogueEntry>>;
  framework: Readonly<Record<FrameworkErrorKind, C>>;
}

export interface CatalogueOptions<E extends Entries, X> {
  framework: FrameworkCodes<E>;
  /** Fields of every entry that follow from the others (ACP's error `type` from the status). */
  derive?: (entry: CatalogueEntry) => X;
}

/** A built catalogue keeps each entry's literal fields, so a wire format can read its own (title, severity). */
export interface BuiltCatalogue<E extends Entries, X> extends ErrorCatalogue<Code<E>> {
  entries: { readonly [K in keyof E]: E[K] & X };
}

export function errorCatalogue<const E extends Entries, X extends object = object>(
  entries: E,
  options: CatalogueOptions<E, X>,
): BuiltCatalogue<E, X> {
  const framework = Object.fromEntries(
    frameworkErrorKinds.map((kind) => [
      kind,
      (options.framework as Partial<Record<string, string>>)[kind] ?? kind,
    ]),
  ) as Record<FrameworkErrorKind, Code<E>>;
  const { derive } = options;
  const built = derive
    ? Object.fromEntries(
        Object.entries(entries).map(([code, entry]) => [code, { ...entry, ...derive(entry) }]),
      )
    : entries;
  return { entries: built as BuiltCatalogue<E, X>['entries'], framework };
}

export type MessageParams = Record<string, string | number>;

/** Fills `{name}` placeholders; a placeholder without a value is left as written, so a gap shows. */
export function fillTemplate(template: string, params: MessageParams): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : String(params[name]),
  );
}

/** The message a code is sent with, from its template. */
export function messageFor<C extends string>(
  catalogue: ErrorCatalogue<C>,
  code: C,
  params: MessageParams = {},
): string {
  const template = catalogue.entries[code].message;
  if (template === undefined) throw new Error(`error code ${code} has no message template`);
  return fillTemplate(template, params);
}

/** The base of every typed error a handler throws: a catalogue code, its status and extra headers. */
export class CatalogueError<C extends string = string> extends Error {
  readonly code: C;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(catalogue: ErrorCatalogue<C>, code: C, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.status = catalogue.entries[code].status;
    this.headers = headers;
  }
}
