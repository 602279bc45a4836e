// The shape of the command table: what each command takes, says and runs. Types only, so the table
// and the help that reads it load nothing else.

export type FlagType = 'string' | 'boolean' | 'integer';

export interface FlagSpec {
  type: FlagType;
  description: string;
  /** The placeholder shown in help, e.g. `<url>`; string and integer flags only. */
  value?: string;
  short?: string;
  required?: boolean;
  choices?: readonly string[];
  /** Integer flags: the smallest and largest values allowed. */
  min?: number;
  max?: number;
}

export interface ArgSpec {
  name: string;
  description: string;
  required: boolean;
}

/** What a command needs: nothing, any credential (API key or login), or the stored login itself. */
export type AuthNeed = 'none' | 'any' | 'login';

export type FlagValues = Record<string, string | boolean | number | undefined>;

export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stderr is a terminal: progress lines are shown only then. */
  tty?: boolean;
  /** Rewrites the one transient progress line on a terminal (empty text clears it). */
  status?: (text: string) => void;
  /** Aborted by Ctrl-C: long waits stop and say what goes on at the server. */
  signal?: AbortSignal;
}

export interface CommandContext {
  spec: CommandSpec;
  /** Positional arguments, in the order of `spec.args`. */
  args: string[];
  flags: FlagValues;
  json: boolean;
  /** --endpoint when given; every client the command makes uses it. */
  endpoint: string | undefined;
  io: CommandIo;
  /** The whole command table, for the commands that describe the others (completion). */
  table: { commands: readonly CommandSpec[]; groups: readonly GroupSpec[] };
}

/** Runs a parsed command; answers its exit code (undefined means 0). */
export type Handler = (ctx: CommandContext) => Promise<number | undefined>;

export interface CommandSpec {
  /** The words that name it: ['keys', 'create'], or ['whoami'] for one without a group. */
  path: readonly string[];
  summary: string;
  args: readonly ArgSpec[];
  flags: Readonly<Record<string, FlagSpec>>;
  examples: readonly string[];
  auth: AuthNeed;
  /** Imports the handler only when the command runs, so help never loads the SDK. */
  load: () => Promise<Handler>;
}

export interface GroupSpec {
  path: readonly string[];
  summary: string;
}
