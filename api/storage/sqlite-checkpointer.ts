// Worker thread: copies an SQLite database's WAL back into the database file (a PASSIVE checkpoint)
// on a connection of its own, so the page writes and fsyncs of checkpoints stay off the event loop.
//
// Under sustained writes a pass never catches up with the writer (frames keep arriving while it
// copies), so SQLite never starts the WAL over and it grows until the writer's own autocheckpoint
// runs inside some COMMIT, on the event loop. So once the WAL holds `restartFrames` frames the worker
// asks the driver for a quiet moment (`CheckpointerMessage` 'quiet'); the driver holds its writes
// back (asynchronously: reads go on), asks for a pass ('checkpoint'), and lets them go when it is
// answered ('checkpointed'). That pass copies every frame, and the next commit starts the WAL over.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

export interface CheckpointerData {
  file: string;
  intervalMs: number;
  /** WAL frames at which the worker asks for a pass with the writer held back. */
  restartFrames: number;
}

/** Worker to driver: wants a quiet moment; a pass asked for has run. */
export type CheckpointerMessage = 'quiet' | 'checkpointed';
/** Driver to worker: run a pass now (writes are held back); stop and close. */
export type DriverMessage = 'checkpoint' | 'close';

const { file, intervalMs, restartFrames } = workerData as CheckpointerData;
const db = new DatabaseSync(file);
db.exec('PRAGMA busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let asked = false;

/** One PASSIVE pass: it never waits for the writer or readers, it copies what it can. */
function pass(): { log: number; checkpointed: number } | undefined {
  try {
    return checkpoint.get() as { log: number; checkpointed: number };
  } catch {
    // A pass that failed (the file busy past the timeout) is retried on the next tick.
    return undefined;
  }
}

const timer = setInterval(() => {
  const done = pass();
  if (done && done.log >= restartFrames && !asked) {
    asked = true;
    parentPort?.postMessage('quiet' satisfies CheckpointerMessage);
  }
}, intervalMs);

parentPort?.on('message', (message: DriverMessage) => {
  if (message === 'checkpoint') {
    pass();
    asked = false;
    parentPort?.postMessage('checkpointed' satisfies CheckpointerMessage);
    return;
  }
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
