// The e2e tier's stand-in for the Tailscale per-office service (test/e2e/images/service/Dockerfile):
// it reads the same environment the controller gives the real one, keeps state on the volume at
// TS_STATE_DIR, and answers GET / with what a test needs to see. It never echoes a credential.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

interface State {
  /** How many times the service has started on this volume. */
  boots: number;
  /** Made on the first boot and kept: the same id later proves it is the same volume. */
  volumeId: string;
}

function fail(message: string): never {
  process.stderr.write(`e2e-service: ${message}\n`);
  process.exit(1);
}

function listenAddress(raw: string | undefined): { host: string; port: number } {
  const match = /^(.*):(\d+)$/.exec(raw ?? '');
  if (!match) fail(`TS_OUTBOUND_HTTP_PROXY_LISTEN must be <host>:<port>, got ${JSON.stringify(raw)}`);
  return { host: match[1] || '0.0.0.0', port: Number(match[2]) };
}

function readState(file: string): State | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as State;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Counts this boot on the volume: written beside and renamed over, so a crash never halves it. */
function boot(stateDir: string): State {
  const file = join(stateDir, 'state.json');
  try {
    mkdirSync(stateDir, { recursive: true });
    const previous = readState(file);
    const state = {
      boots: (previous?.boots ?? 0) + 1,
      volumeId: previous?.volumeId ?? randomBytes(8).toString('hex'),
    };
    writeFileSync(`${file}.tmp`, JSON.stringify(state));
    renameSync(`${file}.tmp`, file);
    return state;
  } catch (err) {
    // A volume whose storage ignores fsGroup (hostPath) stays root's: say so rather than a stack.
    const uid = process.getuid?.() ?? '?';
    fail(`cannot keep state in ${stateDir} as uid ${uid}: ${(err as Error).message}`);
  }
}

const stateDir = process.env.TS_STATE_DIR || fail('TS_STATE_DIR is not set');
const { host, port } = listenAddress(process.env.TS_OUTBOUND_HTTP_PROXY_LISTEN);
const state = boot(stateDir);

const server = createServer((req, res) => {
  if (req.method !== 'GET' || req.url !== '/') {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    return;
  }
  const body = {
    boots: state.boots,
    volumeId: state.volumeId,
    stateDir,
    hasAuthKey: Boolean(process.env.TS_AUTHKEY),
    uid: process.getuid?.(),
  };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
});
server.listen(port, host, () => {
  process.stdout.write(`e2e-service: boot ${state.boots} of volume ${state.volumeId}, on ${host}:${port}\n`);
});
// PID 1 gets no default signal handling: without this, every teardown would wait out the grace period.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
