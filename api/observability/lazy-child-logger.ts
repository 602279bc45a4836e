// A request logger that becomes a real pino child only when something is actually logged.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;
type ChildOptions = Parameters<ChildLoggerFactory>[2];
type Bindings = Record<string, unknown>;
type LevelValues = Record<string, number>;
type LogFn = (...args: unknown[]) => void;

const levelValuesOf = (logger: FastifyBaseLogger): LevelValues | undefined =>
  (logger as unknown as { levels?: { values?: LevelValues } }).levels?.values;

/**
 * Fastify makes a child logger for every request, and pino builds one eagerly (it serialises the
 * bindings up front). Most requests log nothing at the configured level, so the child is created on
 * the first call at an enabled level; until then a request pays for one small object.
 */
class LazyChildLogger {
  private created: FastifyBaseLogger | undefined;
  private readonly parent: FastifyBaseLogger;
  private readonly childBindings: Bindings;
  private readonly opts: ChildOptions;
  private readonly values: LevelValues;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, opts: ChildOptions, values: LevelValues) {
    this.parent = parent;
    this.childBindings = bindings;
    this.opts = opts;
    this.values = values;
  }

  private real(): FastifyBaseLogger {
    this.created ??= this.parent.child(this.childBindings, this.opts);
    return this.created;
  }

  private log(level: string, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.real()[level as 'info'] as LogFn)(...args);
  }

  get level(): string {
    return this.created?.level ?? this.opts.level ?? this.parent.level;
  }

  set level(value: string) {
    this.real().level = value;
  }

  isLevelEnabled(level: string): boolean {
    // Asked twice per request (Fastify's request log lines): pino's own check is a table lookup.
    const own = this.created ?? (this.opts.level === undefined ? this.parent : undefined);
    if (own) return (own as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled(level);
    return (this.values[level] ?? -1) >= (this.values[this.level] ?? Number.POSITIVE_INFINITY);
  }

  child(bindings: Bindings, opts?: ChildOptions): FastifyBaseLogger {
    return this.real().child(bindings, opts);
  }

  bindings(): Bindings {
    return (this.real() as unknown as { bindings(): Bindings }).bindings();
  }

  silent(): void {}
  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.log('error', args);
  }
  warn(...args: unknown[]): void {
    this.log('warn', args);
  }
  info(...args: unknown[]): void {
    this.log('info', args);
  }
  debug(...args: unknown[]): void {
    this.log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.log('trace', args);
  }
}

export const lazyChildLoggerFactory: ChildLoggerFactory = (logger, bindings, opts) => {
  const values = levelValuesOf(logger);
  // Loggers without pino's level table (Fastify's null logger) get their own, ordinary children.
  if (!values) return logger.child(bindings, opts);
  return new LazyChildLogger(logger, bindings, opts, values) as unknown as FastifyBaseLogger;
};
