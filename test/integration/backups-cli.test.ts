// `colony backups list|create|restore` against a listening API with real API keys and a real office.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/run.ts';
import { createOffice, issueKeys, startBackupsServer, type TestOffice } from '../support/backups-office.ts';
import type { TestServer } from '../support/server.ts';

let s: TestServer;
let office: TestOffice;
let address: string;
let keys: Record<string, string>;

beforeAll(async () => {
  office = await createOffice('bkc');
  s = await startBackupsServer();
  keys = await issueKeys(s, {
    admin: { scopes: ['backups:admin'], offices: [office.id] },
    reader: { scopes: ['backups:read'], offices: [office.id] },
  });
  address = await s.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await s?.close();
  await office?.dispose();
});

async function colony(key: string, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: { COLONY_ENDPOINT: address, COLONY_API_KEY: key },
    cwd: process.cwd(),
  });
  return { code, out, err };
}

describe('colony backups', () => {
  let snapshotId: string;

  it('create --wait takes a snapshot and prints each part', async () => {
    const r = await colony(
      keys.admin as string,
      'backups',
      'create',
      '--office',
      office.id,
      '--description',
      'cli',
      '--wait',
    );
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
    snapshotId = r.out[0]?.split(' ')[0] as string;
    expect(snapshotId).toMatch(/^snap_[a-f0-9]{24}$/);
    expect(r.out).toContain(`${snapshotId} completed`);
    expect(r.out.some((l) => /^ {2}database +skipped: /.test(l))).toBe(true);
  });

  it('list shows it', async () => {
    const r = await colony(keys.reader as string, 'backups', 'list', '--office', office.id);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(new RegExp(`^${snapshotId} +${office.id} +completed +manual`));
  });

  it('restore --wait restores the parts asked for', async () => {
    const r = await colony(
      keys.admin as string,
      'backups',
      'restore',
      snapshotId,
      '--parts',
      'resources',
      '--wait',
    );
    expect(r.code).toBe(0);
    expect(r.out[1]).toMatch(/^rst_[a-f0-9]{24} completed$/);
    expect(r.out.slice(2)).toEqual(['  resources  completed']);
  });

  it('schedule set turns the daily snapshot on at an hour and show reads it back; --off turns it off', async () => {
    const set = await colony(
      keys.admin as string,
      'backups',
      'schedule',
      'set',
      '--office',
      office.id,
      '--hour',
      '2',
      '--retention-days',
      '14',
    );
    expect(set.code, set.err.join('\n')).toBe(0);
    expect(set.out[0]).toMatch(new RegExp(`^${office.id}: daily at 02:00 UTC, kept 14 days; next \\d{4}-`));
    const shown = await colony(
      keys.admin as string,
      'backups',
      'schedule',
      'show',
      '--office',
      office.id,
      '--json',
    );
    expect(JSON.parse(shown.out.join('\n'))).toMatchObject({ enabled: true, hourUtc: 2, retentionDays: 14 });
    const off = await colony(
      keys.admin as string,
      'backups',
      'schedule',
      'set',
      '--office',
      office.id,
      '--off',
    );
    expect(off.out).toEqual([`${office.id}: no daily snapshot`]);
  });

  it('exits 3 naming the scope a key lacks, and 2 on a usage error', async () => {
    const denied = await colony(keys.reader as string, 'backups', 'create', '--office', office.id);
    expect(denied.code).toBe(3);
    expect(denied.err.join('\n')).toContain(
      '403 insufficient_scope: This operation needs the scope backups:write.',
    );
    expect((await colony(keys.admin as string, 'backups', 'create')).code).toBe(2);
    expect((await colony(keys.admin as string, 'backups', 'restore')).code).toBe(2);
  });
});
