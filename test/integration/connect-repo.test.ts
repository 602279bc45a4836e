// The Connect flow's storage on SQLite and PostgreSQL: states are single-use and short-lived, and a
// refresh is leased to one replica at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { storageTargets } from '../support/storage-targets.ts';

describe.each(storageTargets)('connect storage on $name', (t) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  const now = 1_800_000_000_000;
  const state = (over: Partial<{ expiresAt: number; instanceLabel: string }> = {}) => ({
    officeId: 'acme',
    accountId: 'acct_1',
    integrationId: 'google-workspace',
    instanceLabel: over.instanceLabel,
    codeVerifier: 'v'.repeat(43),
    expiresAt: over.expiresAt ?? now + 600_000,
  });

  beforeAll(async () => {
    const made = await t.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
  });
  afterAll(async () => {
    await storage.close();
    await dispose();
  });

  it('hands a state out once, even to many concurrent callbacks', async () => {
    await storage.connect.saveState('s-race', state({ instanceLabel: 'eu' }), now);
    const taken = await Promise.all(
      Array.from({ length: 10 }, () => storage.connect.consumeState('s-race', now)),
    );
    const won = taken.filter((x) => x !== undefined);
    expect(won).toHaveLength(1);
    expect(won[0]).toMatchObject({ officeId: 'acme', accountId: 'acct_1', instanceLabel: 'eu' });
    expect(await storage.connect.consumeState('s-race', now)).toBeUndefined();
  });

  it('refuses an expired state and sweeps old ones on the next save', async () => {
    await storage.connect.saveState('s-old', state({ expiresAt: now + 1000 }), now);
    expect(await storage.connect.consumeState('s-old', now + 1001)).toBeUndefined();
    await storage.connect.saveState('s-old2', state({ expiresAt: now + 1000 }), now);
    await storage.connect.saveState('s-new', state(), now + 2000);
    expect(await storage.connect.consumeState('s-old2', now)).toBeUndefined();
  });

  it('leases a due refresh to one caller, then records success or failure', async () => {
    const key = { officeId: 'acme', integrationId: 'google-workspace', instanceLabel: undefined };
    await storage.connect.connected(
      { ...key, namespace: 'office-acme', secretName: 's', expiresAt: now + 60_000 },
      now,
    );
    const due = await storage.connect.due(now + 300_000, now);
    expect(due.map((d) => d.integrationId)).toEqual(['google-workspace']);
    const leases = await Promise.all(
      Array.from({ length: 6 }, () => storage.connect.lease(key, now + 60_000, now, 60_000)),
    );
    expect(leases.filter(Boolean)).toHaveLength(1);
    expect(await storage.connect.due(now + 300_000, now)).toHaveLength(0);
    await storage.connect.refreshed(key, now + 3_600_000, now);
    expect(await storage.connect.due(now + 300_000, now)).toHaveLength(0);
    await storage.connect.failed(key, 'refused (invalid_grant); reconnect.', now);
    const [record] = await storage.connect.forOffice('acme');
    expect(record).toMatchObject({
      status: 'refresh_failed',
      message: 'refused (invalid_grant); reconnect.',
    });
    expect(await storage.connect.due(now + 10 * 3_600_000, now)).toHaveLength(0);
    await storage.connect.connected(
      { ...key, namespace: 'office-acme', secretName: 's', expiresAt: now + 1 },
      now,
    );
    expect((await storage.connect.forOffice('acme'))[0]).toMatchObject({
      status: 'connected',
      message: null,
    });
    await storage.connect.remove(key);
    expect(await storage.connect.forOffice('acme')).toHaveLength(0);
  });
});
