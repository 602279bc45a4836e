// The CLI's own failures with their exit codes: 0 ok, 1 failure, 2 usage, 3 auth, 4 not found.

export const EXIT = { ok: 0, failure: 1, usage: 2, auth: 3, notFound: 4, interrupted: 130 } as const;

/** The command line is wrong: exit 2, with the help to read. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command (or group) whose help says how it is used, e.g. `keys create`. */
  readonly helpPath: string;

  constructor(message: string, helpPath: readonly string[] = []) {
    super(message);
    this.helpPath = helpPath.join(' ');
  }
}

/** A failure the CLI finds itself (not configured, a bad file): its exit code and the next step. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, exitCode: number = EXIT.failure, hint?: string) {
    super(message);
    this.exitCode = exitCode;
    this.hint = hint;
  }
}
