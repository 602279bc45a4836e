// An open-loop load: requests leave on a fixed schedule whatever the answers do, the way independent
// users arrive. Each latency is timed in fractions of a millisecond from when the request was handed
// to the connection pool, so a request that waited for a free connection counts its wait, while the
// generator's own timer lateness (timers fire no finer than a millisecond) does not.
// autocannon's `overallRate` is not this: each connection sends its share of a second's requests
// back to back as fast as answers come and then idles until the next second, and it fills in latency
// values for a 1 ms expected interval, so a "200 reads/s" p99 measured bursts and invented samples.
// Run as a script (argv[2]: a JSON LoadSpec) it prints its figures as one JSON line, so a load can
// run in its own process, away from another load generator's event loop.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { percentile } from './load.ts';

export interface LoadSpec {
  origin: string;
  method: 'GET' | 'POST';
  /** Paths used in turn, request n taking paths[n % paths.length]. */
  paths: string[];
  body?: string;
  headers?: Record<string, string>;
  /** When set, request n carries `Idempotency-Key: <prefix>-<n>`. */
  idempotencyKeyPrefix?: string;
  /** Requests per second, spread evenly over the run. */
  rate: number;
  seconds: number;
  /** The most connections open at once; a request due while all are busy waits, and that counts. */
  connections: number;
  /** When to send the first request (epoch ms), so loads in separate processes start together. */
  startAt?: number;
  /**
   * The generator's scheduling priority (nice value). On a machine the server shares with its load
   * generators, a background load given a lower priority takes CPU only when the server and the
   * measuring load leave it some, as clients on other machines would.
   */
  nice?: number;
}

export interface OpenLoopFigures {
  sent: number;
  /** Achieved answers per second. */
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  max: number;
}

/** Runs one open-loop load; rejects if any answer is not 2xx or any request fails. */
export async function openLoop(spec: LoadSpec): Promise<OpenLoopFigures> {
  const pool = new Pool(spec.origin, { connections: spec.connections, pipelining: 1 });
  const interval = 1000 / spec.rate;
  const total = Math.round(spec.rate * spec.seconds);
  const latencies: number[] = [];
  const failures: string[] = [];
  const inFlight: Promise<void>[] = [];
  const send = async (n: number) => {
    const sentAt = performance.now();
    const headers = { ...spec.headers };
    if (spec.idempotencyKeyPrefix) headers['idempotency-key'] = `${spec.idempotencyKeyPrefix}-${n}`;
    try {
      const res = await pool.request({
        path: spec.paths[n % spec.paths.length] ?? '/',
        method: spec.method,
        headers,
        ...(spec.body !== undefined ? { body: spec.body } : {}),
      });
      await res.body.dump();
      if (res.statusCode < 200 || res.statusCode > 299) failures.push(`status ${res.statusCode}`);
      else latencies.push(performance.now() - sentAt);
    } catch (error) {
      failures.push(String(error));
    }
  };
  const start = performance.now() + Math.max(5, (spec.startAt ?? 0) - Date.now());
  let next = 0;
  await new Promise<void>((resolve) => {
    // Timers fire no finer than a millisecond and may fire late; every request due by then leaves.
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * interval <= now) {
        inFlight.push(send(next));
        next += 1;
      }
      if (next >= total) return resolve();
      setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
    };
    setTimeout(tick, start - performance.now());
  });
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  if (failures.length > 0) {
    throw new Error(`${spec.origin}: ${failures.length} of ${total} requests failed (${failures[0]})`);
  }
  return {
    sent: total,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: percentile(latencies, 100),
  };
}

/** The same load in a child process of its own. */
export function openLoopInChild(spec: LoadSpec): Promise<OpenLoopFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [import.meta.filename, JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`open-loop load exited with ${code}`));
      resolve(JSON.parse(out) as OpenLoopFigures);
    });
  });
}

if (import.meta.main) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
  if (spec.nice) setPriority(spec.nice);
  openLoop(spec).then(
    (figures) => process.stdout.write(`${JSON.stringify(figures)}\n`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
