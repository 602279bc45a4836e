// Strict Handlebars for manifests: credential files and credential checks are templates over the
// credential values. A variable the data lacks is an error, never an empty string.
import Handlebars from 'handlebars';

/** `{{json X}}` embeds a value as a JSON string literal, so a credential can never break a JSON file. */
const HELPERS: Record<string, Handlebars.HelperDelegate> = {
  json: (value: unknown) => JSON.stringify(value),
};
const BLOCK_HELPERS = new Set(['if', 'unless', 'with']);

const env = Handlebars.create();
for (const [name, fn] of Object.entries(HELPERS)) env.registerHelper(name, fn);

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

type Node = hbs.AST.Node & {
  path?: hbs.AST.PathExpression;
  params?: hbs.AST.Expression[];
  program?: hbs.AST.Program;
  inverse?: hbs.AST.Program;
};

function collectCall(node: Node, out: Set<string>): void {
  const head = node.path?.original ?? '';
  const known = head in HELPERS || BLOCK_HELPERS.has(head);
  if (!known && (node.params?.length ?? 0) > 0)
    throw new TemplateError(`unknown helper "${head}" (allowed: json, if, unless, with)`);
  if (!known && node.path) collect(node.path, out);
  for (const p of node.params ?? []) collect(p as Node, out);
  collect(node.program, out);
  collect(node.inverse, out);
}

function collect(node: Node | undefined, out: Set<string>): void {
  if (!node) return;
  switch (node.type) {
    case 'Program':
      for (const s of (node as hbs.AST.Program).body) collect(s as Node, out);
      return;
    case 'PathExpression':
      if ((node as hbs.AST.PathExpression).original !== 'this')
        out.add((node as hbs.AST.PathExpression).original);
      return;
    case 'MustacheStatement':
    case 'BlockStatement':
      collectCall(node, out);
      return;
    case 'PartialStatement':
    case 'PartialBlockStatement':
      throw new TemplateError('partials are not allowed');
  }
}

/** The variables a template reads; throws TemplateError when it does not parse or uses helpers we lack. */
export function templateVariables(template: string): string[] {
  let ast: hbs.AST.Program;
  try {
    ast = env.parse(template);
  } catch (err) {
    throw new TemplateError(`not a valid template: ${(err as Error).message.replace(/\s*\n\s*/g, ' ')}`);
  }
  const vars = new Set<string>();
  collect(ast as Node, vars);
  return [...vars].sort();
}

/** Renders strictly: a variable missing from `data` throws TemplateError naming it. */
export function renderTemplate(template: string, data: Record<string, string>): string {
  const missing = templateVariables(template).filter((v) => !(v in data));
  if (missing.length > 0) throw new TemplateError(`missing variable ${missing.join(', ')}`);
  try {
    return env.compile(template, {
      strict: true,
      noEscape: true,
      knownHelpersOnly: true,
      knownHelpers: { json: true },
    })(data);
  } catch (err) {
    throw new TemplateError((err as Error).message.split('\n')[0] ?? 'template failed');
  }
}
