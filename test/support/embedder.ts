// The test embedding model (test/support/embedder/server.py: all-MiniLM-L6-v2 in numpy, installed by
// scripts/ensure-embedder.sh) as an OpenAI-compatible embeddings API on a loopback port.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const EMBEDDER_MODEL = 'all-MiniLM-L6-v2';

export const embedderPython = (): string =>
  process.env.COLONY_EMBEDDER_PYTHON ??
  join(
    process.env.COLONY_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'colony'),
    'embedder',
    'bin',
    'python',
  );

export interface Embedder {
  /** Base URL as COLONY_EMBEDDINGS_URL takes it (ends in /v1). */
  url: string;
  stop(): Promise<void>;
}

export async function startEmbedder(): Promise<Embedder> {
  const python = embedderPython();
  if (!existsSync(python)) {
    throw new Error(`${python} is missing: run bash scripts/ensure-embedder.sh (make test does)`);
  }
  const script = new URL('./embedder/server.py', import.meta.url).pathname;
  const child: ChildProcess = spawn(python, [script, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c) => {
    stderr += c;
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the embedder did not start within 60 s')), 60_000);
    let out = '';
    child.stdout?.on('data', (c) => {
      out += c;
      const m = /LISTENING (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the embedder exited with ${code}: ${stderr.slice(-2000)}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/v1`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
