// Worker thread: copies an SQLite database's WAL back into the database file (a PASSIVE checkpoint)
// on a connection of its own, so the page writes and fsyncs of checkpoints stay off the event loop.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

export interface CheckpointerData {
  file: string;
  intervalMs: number;
}

const { file, intervalMs } = workerData as CheckpointerData;
const db = new DatabaseSync(file);
db.exec('PRAGMA busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

// PASSIVE never waits for the writer or readers: it copies what it can and the next pass goes on.
const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch {
    // A pass that failed (the file busy past the timeout) is retried on the next tick.
  }
}, intervalMs);

parentPort?.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
