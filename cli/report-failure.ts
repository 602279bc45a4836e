// Pure: what a failed command prints on stderr (the problem, then the next step) and its exit code.
// Errors are told apart by name, so this module loads none of the SDK.
import { EXIT } from './usage-error.ts';

export interface Failure {
  code: number;
  message: string;
  hint?: string;
}

interface Named {
  name?: string;
  message?: string;
  code?: string;
  helpPath?: string;
  hint?: string;
  exitCode?: number;
  problem?: { status?: number };
}

/** AuthError codes that mean "sign in (again)": exit 3. */
const signInCodes = new Set(['not_logged_in', 'login_expired', 'invalid_grant']);

function apiFailure(message: string, status: number): Failure {
  if (status === 401)
    return { code: EXIT.auth, message, hint: 'run `colony login`, or set COLONY_API_KEY to a valid key' };
  if (status === 403)
    return {
      code: EXIT.auth,
      message,
      hint: 'the credential lacks this scope or office; run `colony login` or use a key that has it',
    };
  if (status === 404)
    return { code: EXIT.notFound, message, hint: 'check the id; the list commands show what exists' };
  if (status === 429 || status === 503)
    return { code: EXIT.failure, message, hint: 'wait a moment and retry' };
  return { code: EXIT.failure, message };
}

const withHint = (code: number, message: string, hint: string | undefined): Failure =>
  hint ? { code, message, hint } : { code, message };

function authFailure(message: string, code: string | undefined): Failure {
  if (code === 'unreachable') return unreachable(message);
  if (!signInCodes.has(code ?? '')) return { code: EXIT.failure, message };
  return withHint(EXIT.auth, message, message.includes('colony login') ? undefined : 'run `colony login`');
}

/** By the error's name: how it is reported. */
const byName: Record<string, (e: Named, message: string) => Failure> = {
  UsageError: (e, message) =>
    withHint(EXIT.usage, message, `run \`colony ${e.helpPath ? `${e.helpPath} ` : ''}--help\` for usage`),
  ColonyApiError: (e, message) => apiFailure(message, e.problem?.status ?? 0),
  AuthError: (e, message) => authFailure(message, e.code),
  ColonyNetworkError: (_, message) => unreachable(message),
  CliFailure: (e, message) => withHint(e.exitCode ?? EXIT.failure, message, e.hint),
  WaitInterrupted: (e, message) => withHint(EXIT.interrupted, message, e.hint),
  AbortError: () => ({ code: EXIT.interrupted, message: 'interrupted' }),
};

export function describeFailure(err: unknown): Failure {
  const e = (err ?? {}) as Named;
  const message = e.message ?? String(err);
  const describe = e.name && Object.hasOwn(byName, e.name) ? byName[e.name] : undefined;
  return describe ? describe(e, message) : { code: EXIT.failure, message };
}

const unreachable = (message: string): Failure => ({
  code: EXIT.failure,
  message,
  hint: 'check that the server is up, or pass --endpoint <url> (or set COLONY_ENDPOINT)',
});

export function failureLines(f: Failure): string[] {
  return [`colony: ${f.message}`, ...(f.hint ? [`hint: ${f.hint}`] : [])];
}
