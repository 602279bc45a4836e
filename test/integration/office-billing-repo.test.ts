// The billing account of self-serve offices on SQLite and PostgreSQL: recorded once, listed per
// account, forgotten when the office goes; an office without a row is operator-managed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { storageTargets } from '../support/storage-targets.ts';

describe.each(storageTargets)('office billing on $name', (t) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  const now = 1_800_000_000_000;

  beforeAll(async () => {
    const made = await t.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
  });
  afterAll(async () => {
    await storage.close();
    await dispose();
  });

  it('records the creating account once and lists its offices oldest first', async () => {
    await storage.officeBilling.record('beta', 'acct_a', now + 1);
    await storage.officeBilling.record('alpha', 'acct_a', now);
    await storage.officeBilling.record('gamma', 'acct_b', now);
    // A second record (a retried create by someone else) does not move the office to another plan.
    await storage.officeBilling.record('alpha', 'acct_b', now + 2);
    expect(await storage.officeBilling.accountOf('alpha')).toBe('acct_a');
    expect(await storage.officeBilling.officesOf('acct_a')).toEqual(['alpha', 'beta']);
    expect(await storage.officeBilling.officesOf('acct_b')).toEqual(['gamma']);
    expect(await storage.officeBilling.accountOf('operator-office')).toBeUndefined();
  });

  it('forgets a deleted office so it no longer counts', async () => {
    await storage.officeBilling.record('delta', 'acct_c', now);
    await storage.officeBilling.forget('delta');
    expect(await storage.officeBilling.accountOf('delta')).toBeUndefined();
    expect(await storage.officeBilling.officesOf('acct_c')).toEqual([]);
  });
});
