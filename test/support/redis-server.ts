// A private redis-server child process on a free port, which a test may kill, pause and restart.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { eventually } from './eventually.ts';
import { freePort } from './server.ts';

export interface PrivateRedis {
  url: string;
  /** SIGKILL, resolved once the process is gone (an outage: connections refused). */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: the port accepts connections but nothing answers (a stalled Redis). */
  pause(): void;
  resume(): void;
  /** Starts it again on the same port (empty: nothing is saved), resolved once it accepts connections. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn('/usr/bin/redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await eventually(() => accepts(port));
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const gone = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGCONT');
    running.kill('SIGKILL');
    await gone;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    kill,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    restart: launch,
    stop: kill,
  };
}
