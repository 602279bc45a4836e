// Backups benchmark, end to end (only with a cluster): a whole snapshot of an office through the
// API (POST /api/snapshots, the durable job, every part) and a restore of its database, timed from
// the request until the resource reports completed.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';
import { onKwokNodes } from '../support/kube.ts';

const TOKEN = 'backups-bench-bootstrap-token-0123456789';

async function untilSettled(app: Awaited<ReturnType<typeof buildServer>>, path: string) {
  for (;;) {
    const body = (await app.inject({ url: path, headers: { authorization: `Bearer ${TOKEN}` } })).json();
    if (!['pending', 'running'].includes(body.status)) return body;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Answers the times (ms) of a full snapshot and of its database restore. */
export async function endToEnd(args: {
  kc: KubeConfig;
  kubeconfig: string;
  officeId: string;
  adminUrl: string;
  dataDir: string;
}): Promise<{ snapshotMs: number; workMs: number; restoreMs: number; status: string }> {
  const core = args.kc.makeApiClient(CoreV1Api);
  const namespace = `office-${args.officeId}`;
  await core.createNamespace({
    body: {
      metadata: { name: namespace, labels: { 'colony.ai/office': args.officeId }, annotations: onKwokNodes },
    },
  });
  const config = loadConfig({
    COLONY_DATA_DIR: args.dataDir,
    KUBECONFIG: args.kubeconfig,
    COLONY_BOOTSTRAP_TOKEN: TOKEN,
    COLONY_OFFICE_DATABASE_URL: args.adminUrl,
    COLONY_BACKUPS_SWEEP_SECONDS: '0',
    COLONY_JOB_POLL_MS: '50',
    LOG_LEVEL: 'silent',
  });
  const app = await buildServer(config);
  await app.ready();
  try {
    const auth = { authorization: `Bearer ${TOKEN}` };
    let started = performance.now();
    const created = await app.inject({
      method: 'POST',
      url: '/api/snapshots',
      headers: auth,
      payload: { office: args.officeId },
    });
    const snap = await untilSettled(app, new URL(created.headers.location as string).pathname);
    const snapshotMs = performance.now() - started;
    started = performance.now();
    const restore = await app.inject({
      method: 'POST',
      url: `/api/snapshots/${snap.id}/restore`,
      headers: auth,
      payload: { parts: ['database'] },
    });
    const restored = await untilSettled(app, new URL(restore.headers.location as string).pathname);
    return {
      snapshotMs,
      workMs: Date.parse(snap.completedAt) - Date.parse(snap.startedAt),
      restoreMs: performance.now() - started,
      status: `${snap.status}/${restored.status}`,
    };
  } finally {
    await app.close();
    await core.deleteNamespace({ name: namespace }).catch(() => {});
  }
}
