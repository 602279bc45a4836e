// --endpoint on every command, against two real servers at once (one on SQLite, one on PostgreSQL),
// each behind a proxy that records what reaches it. Each pair of runs goes concurrently, one to each
// server, with COLONY_ENDPOINT naming a third proxy (a decoy) that must see nothing: a command that
// ignored --endpoint would go there. Credentials are valid nowhere, so nothing changes on either.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../cli/command-table.ts';
import { runCli } from '../../cli/run.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { postgresTarget, sqliteTarget } from '../support/storage-targets.ts';

interface Recorder {
  url: string;
  /** `METHOD /path bearer-tag` of each request that reached the server through the proxy. */
  seen: string[];
  close(): Promise<void>;
}

/** A pass-through proxy to `upstream` that records each request; the bearer is reduced to a tag. */
async function recordingProxy(upstream: string): Promise<Recorder> {
  const seen: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const tag = /(alpha|beta)/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '-';
    seen.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname} ${tag}`);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length'),
    ) as Record<string, string>;
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const answer = await fetch(`${upstream}${req.url}`, { method: req.method ?? 'GET', headers, body });
    const passed = [...answer.headers].filter(
      ([k]) => !['content-encoding', 'content-length', 'transfer-encoding'].includes(k),
    );
    res.writeHead(answer.status, Object.fromEntries(passed));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let servers: ListeningServer[] = [];
let alpha: Recorder;
let beta: Recorder;
let decoy: Recorder;
let configDir: string;
let envFile: string;

beforeAll(async () => {
  const env = { COLONY_API_RATE_LIMIT: '10000', COLONY_SIGNIN_RATE_LIMIT: '10000' };
  servers = await Promise.all([
    startListeningServer(sqliteTarget, env),
    startListeningServer(postgresTarget, env),
  ]);
  [alpha, beta, decoy] = (await Promise.all(
    [...servers, ...servers.slice(0, 1)].map((s) => recordingProxy(s.baseUrl)),
  )) as [Recorder, Recorder, Recorder];
  configDir = mkdtempSync(join(tmpdir(), 'colony-cli-endpoint-'));
  envFile = join(configDir, 'slack.env');
  writeFileSync(envFile, 'SLACK_BOT_TOKEN=xoxb-not-a-real-token\n');
});
afterAll(async () => {
  await Promise.all([alpha?.close(), beta?.close(), decoy?.close()]);
  await Promise.all(servers.map((s) => s.close()));
  rmSync(configDir, { recursive: true, force: true });
});

/** A stored login for each proxy, valid nowhere, tagged by its name (keys and logout need one). */
function writeLogins() {
  const login = (r: Recorder, tag: string) => ({
    accessToken: `at_${tag}_${'x'.repeat(32)}`,
    refreshToken: null,
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    scope: 'keys:write',
    issuer: r.url,
    resource: r.url,
    clientId: 'colony-cli',
  });
  const logins = {
    [alpha.url]: login(alpha, 'alpha'),
    [beta.url]: login(beta, 'beta'),
    [decoy.url]: login(decoy, 'decoy'),
  };
  writeFileSync(
    join(configDir, 'credentials.json'),
    JSON.stringify({ version: 1, defaultEndpoint: null, logins }),
  );
}

/** The arguments of a valid call; ids carry the run's tag so each server's log shows whose it is. */
function argsFor(path: string, tag: string): string[] {
  const office = ['--office', `office-${tag}`];
  const id = `id-${tag}`;
  const samples: Record<string, string[]> = {
    completion: ['bash'],
    'keys create': ['--name', tag],
    'keys revoke': [id],
    'integrations show': [id],
    'integrations validate': ['integrations'],
    'integrations status': office,
    'integrations connect': [id, ...office],
    'integrations enable': [id, ...office, '--agent', tag],
    'integrations disable': [id, ...office, '--agent', tag],
    'integrations secret set': [id, ...office, '--from-env-file', envFile],
    'integrations secret delete': [id, ...office],
    'offices create': [`office-${tag}`],
    'offices delete': [`office-${tag}`],
    'offices members list': office,
    'offices members add': [...office, '--email', `${tag}@example.com`],
    'offices members remove': [id, ...office],
    'offices tasks list': office,
    'offices tasks create': [...office, '--title', tag, '--prompt', tag],
    'offices tasks show': [id, ...office],
    'offices tasks update': [id, ...office, '--status', 'done'],
    'backups show': [id],
    'backups create': office,
    'backups restore': [id],
    'backups delete': [id],
    'backups schedule show': office,
    'backups schedule set': [...office, '--off'],
  };
  return samples[path] ?? [];
}

/** Commands that never talk to a server. */
const local = new Set(['completion', 'integrations validate']);

async function runAgainst(target: Recorder, tag: string, path: readonly string[]) {
  const login = new AbortController();
  const err: string[] = [];
  const code = await runCli([...path, ...argsFor(path.join(' '), tag), '--endpoint', target.url], {
    out: () => {},
    // The device flow waits for a person: stop it once it has reached the server and shown a code.
    err: (line) => {
      err.push(line);
      if (line.startsWith('Waiting for approval')) login.abort(new DOMException('stop', 'AbortError'));
    },
    env: { COLONY_CONFIG_DIR: configDir, COLONY_ENDPOINT: decoy.url, COLONY_API_KEY: `col_${tag}_not_a_key` },
    cwd: process.cwd(),
    signal: login.signal,
  });
  return { code, err };
}

describe.each(commands.map((c) => [c.path.join(' '), c.path] as const))(
  'colony %s --endpoint',
  (name, path) => {
    it(
      local.has(name) ? 'talks to no server' : 'reaches the endpoint it is given, and only that one',
      async () => {
        writeLogins();
        const before = [alpha.seen.length, beta.seen.length];
        const decoyBefore = decoy.seen.length;
        const runs = await Promise.all([runAgainst(alpha, 'alpha', path), runAgainst(beta, 'beta', path)]);
        expect(decoy.seen.slice(decoyBefore)).toEqual([]);
        const atAlpha = alpha.seen.slice(before[0]);
        const atBeta = beta.seen.slice(before[1]);
        for (const r of runs) expect(r.code, r.err.join('\n')).not.toBe(2);
        if (local.has(name)) {
          expect([atAlpha, atBeta]).toEqual([[], []]);
          return;
        }
        expect(atAlpha.length, atAlpha.join('\n')).toBeGreaterThan(0);
        expect(atBeta.length).toBe(atAlpha.length);
        // Whatever carries a tag (a bearer or an id in the path) belongs to the run sent there.
        expect(atAlpha.filter((line) => line.includes('beta'))).toEqual([]);
        expect(atBeta.filter((line) => line.includes('alpha'))).toEqual([]);
      },
    );
  },
);
