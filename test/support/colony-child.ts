// A Colony API server in a process of its own, on the storage target the parent names (so a test can
// kill it for real and start another on the same database). Run by colony-process.ts.
import { openStorage } from '../../api/app-storage.ts';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';

const target = JSON.parse(process.env.COLONY_TEST_STORAGE_TARGET ?? '');
const storage = await openStorage(target);
const config = loadConfig(process.env);
const app = await buildServer(config, { storage, runJobs: process.env.COLONY_TEST_RUN_JOBS !== 'false' });
await app.listen({ port: config.port, host: '127.0.0.1' });
