// `colony backups show <snapshot_id>`: one snapshot and its per-part report.
import { clientFor } from '../../client-from-env.ts';
import { partLines, printRecord } from '../../output.ts';
import type { Snapshot } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

/** Pure: `snap_… completed` and a line per part, then the error if it failed. */
export const snapshotLines = (s: Snapshot): string[] => [
  `${s.id} ${s.status}`,
  ...partLines(s.parts),
  ...(s.error ? [`error: ${s.error}`] : []),
];

export const run: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const snapshot = await client.getSnapshot(ctx.args[0] as string);
  printRecord(ctx, snapshot, () => snapshotLines(snapshot));
  return 0;
};
