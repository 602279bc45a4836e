// Starts colony-child.ts as a real child process on a storage target, and kills it with SIGKILL.
import { type ChildProcess, spawn } from 'node:child_process';
import type { StorageTarget } from '../../api/storage/open-database.ts';
import { eventually } from './eventually.ts';
import { freePort } from './server.ts';

const child = new URL('./colony-child.ts', import.meta.url).pathname;

export interface ColonyProcess {
  baseUrl: string;
  /** SIGKILL: no shutdown hook, no last flush. Resolves when the process is gone. */
  kill(): Promise<void>;
}

export async function startColonyProcess(
  target: StorageTarget,
  env: Record<string, string>,
  opts: { runJobs: boolean },
): Promise<ColonyProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc: ChildProcess = spawn(process.execPath, [child], {
    env: {
      ...process.env,
      KUBECONFIG: '',
      DATABASE_URL: '',
      COLONY_RUN_CONTROLLER: 'false',
      PORT: String(port),
      COLONY_BASE_URL: baseUrl,
      LOG_LEVEL: 'warn',
      COLONY_TEST_STORAGE_TARGET: JSON.stringify(target),
      COLONY_TEST_RUN_JOBS: String(opts.runJobs),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await eventually(async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok, 30_000);
  return {
    baseUrl,
    async kill() {
      proc.kill('SIGKILL');
      await exited;
    },
  };
}
