// Helm and the chart tooling for the chart checks and the e2e tier. The binaries come from
// scripts/ensure-helm-tools.sh (pinned, built through the Go module proxy, cached outside the repo).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export const repoRoot = new URL('../..', import.meta.url).pathname;
export const chartDir = `${repoRoot}charts/colony`;

export interface HelmTools {
  helm: string;
  ct: string;
  actionlint: string;
  ctChartSchema: string;
  /** Directory holding every tool; ct runs helm, yamllint and yamale from PATH. */
  bin: string;
}

let cached: HelmTools | undefined;

/** Installs the tools if needed (a no-op when cached) and returns their paths. */
export function helmTools(): HelmTools {
  if (cached) return cached;
  const out = execFileSync('bash', [`${repoRoot}scripts/ensure-helm-tools.sh`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const vars = Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  cached = {
    helm: vars.HELM ?? '',
    ct: vars.CT ?? '',
    actionlint: vars.ACTIONLINT ?? '',
    ctChartSchema: vars.CT_CHART_SCHEMA ?? '',
    bin: vars.HELM_TOOLS_BIN ?? '',
  };
  return cached;
}

export interface RunResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** Runs a tool from the repository root with the tools first on PATH; never throws. */
export function run(file: string, args: string[], opts: { input?: string } = {}): RunResult {
  try {
    const stdout = execFileSync(file, args, {
      cwd: repoRoot,
      encoding: 'utf8',
      input: opts.input,
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${helmTools().bin}:${process.env.PATH ?? ''}` },
    });
    return { ok: true, stdout, stderr: '' };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, stdout: e.stdout ?? '', stderr: e.stderr || e.message };
  }
}

/** Runs helm and fails with its output when it fails. */
export function helm(args: string[], opts: { input?: string } = {}): string {
  const r = run(helmTools().helm, args, opts);
  if (!r.ok) throw new Error(`helm ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

/** `--set-json` arguments for a values object, key by key. */
export function setJson(values: Record<string, unknown>): string[] {
  return Object.entries(values).flatMap(([k, v]) => ['--set-json', `${k}=${JSON.stringify(v)}`]);
}

/** A release name nobody else uses (its cluster-scoped RBAC objects are named after it). */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}
