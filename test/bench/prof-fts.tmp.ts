// @ts-nocheck
import { rmSync } from 'node:fs';
import { openStorage } from '../../api/app-storage.ts';
import { newAccountId } from '../../api/identity/accounts/account.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
rmSync('/tmp/realdb', { recursive: true, force: true });
const storage = await openStorage({ kind: 'sqlite', file: '/tmp/realdb/colony.db' });
const ada = newAccountId();
await storage.identity.accounts.create({ id: ada, email: 'a@x', name: 'a', passwordHash: 'x', createdAt: 1, updatedAt: 1 });
const memory = new MemoryService({ repo: storage.identity.memories, dialect: 'sqlite', now: Date.now });
await memory.remember(ada, 'The bench deploys on Fridays.');
for (const label of ['warm', 'measure', 'measure2']) {
  const t = process.cpuUsage(); const w = process.hrtime.bigint(); let n = 0; const t0 = Date.now();
  while (Date.now() - t0 < 1000) { await memory.recall(ada, 'when does the bench deploy'); n++; }
  const c = process.cpuUsage(t);
  console.log(label, ((c.user + c.system) / n).toFixed(1), 'us cpu', (Number(process.hrtime.bigint() - w) / n / 1000).toFixed(1), 'us wall');
}
await storage.close();
for (const [q, [n, t]] of (globalThis as any).__sqlStats ?? []) if (n > 100) console.log(n, (t / n).toFixed(1), 'us', q.replace(/\s+/g, ' ').slice(0, 100));
