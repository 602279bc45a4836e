// @ts-nocheck
import { sqliteTarget } from '../support/storage-targets.ts';
import { colonyOn } from './bare-oidc-provider.ts';
const s = await colonyOn(sqliteTarget, { COLONY_API_RATE_LIMIT: '1000000000', LOG_LEVEL: 'info' });
for (let i = 0; i < 3; i++) await fetch(`${s.baseUrl}/api/v1/pricing`).then((r) => r.text());
await new Promise((r) => setTimeout(r, 300));
await s.close();
