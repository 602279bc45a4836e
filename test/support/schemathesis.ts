// Runs schemathesis (installed by scripts/ensure-schemathesis.sh) against a listening server's
// /openapi.json with test/support/schemathesis.toml, and returns what it found, one line per finding.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export const schemathesisBin = (): string =>
  process.env.COLONY_SCHEMATHESIS ??
  join(
    process.env.COLONY_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'colony'),
    'schemathesis',
    'bin',
    'schemathesis',
  );

const CONFIG = new URL('./schemathesis.toml', import.meta.url).pathname;
/** The failures it does not count, each with its reason (some temporary). */
const HOOKS = new URL('./schemathesis-hooks.py', import.meta.url).pathname;

export interface FuzzRun {
  /** `<check code> <title>: <operations>` for each kind of failure, and each error of the run. */
  findings: string[];
  /** The FAILURES section of schemathesis's own report: every case with a curl line to replay it. */
  details: string;
}

interface JsonReport {
  failures: { code: string; title: string; operations: string[] }[];
  errors: unknown[];
  operations: { tested: number };
}

/** Fuzzes every operation of `${baseUrl}/openapi.json`, sending `headers` with each request. */
export async function fuzzOpenApi(baseUrl: string, headers: Record<string, string>): Promise<FuzzRun> {
  const bin = schemathesisBin();
  if (!existsSync(bin))
    throw new Error(`${bin} is missing: run bash scripts/ensure-schemathesis.sh (make test does)`);
  // Its caches and reports go to a scratch folder, never into the checkout.
  const work = mkdtempSync(join(tmpdir(), 'colony-fuzz-'));
  try {
    const args = ['--config-file', CONFIG, 'run', `${baseUrl}/openapi.json`, '--no-color'];
    for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
    args.push('--report', 'json', '--report-dir', work);
    const stdout = await new Promise<string>((resolve, reject) => {
      // Exit code 1 means findings, which the report lists; anything else is the harness failing.
      const env = { ...process.env, SCHEMATHESIS_HOOKS: HOOKS };
      execFile(bin, args, { cwd: work, env, maxBuffer: 64 * 1024 * 1024 }, (err, out, errOut) => {
        if (err && err.code !== 1) reject(new Error(`schemathesis failed (${err.code}): ${errOut || out}`));
        else resolve(out);
      });
    });
    const file = readdirSync(work).find((f) => f.endsWith('.json'));
    if (!file) throw new Error(`schemathesis wrote no report:\n${stdout.slice(-4000)}`);
    const report = JSON.parse(readFileSync(join(work, file), 'utf8')) as JsonReport;
    if (report.operations.tested === 0)
      throw new Error(`schemathesis tested nothing:\n${stdout.slice(-4000)}`);
    const findings = [
      ...report.failures.map((f) => `${f.code} ${f.title}: ${f.operations.join(', ')}`),
      ...report.errors.map((e) => `error: ${JSON.stringify(e)}`),
    ];
    const start = stdout.indexOf('FAILURES');
    const end = stdout.indexOf('SUMMARY');
    return { findings, details: start < 0 ? '' : stdout.slice(start, end < 0 ? undefined : end) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
