// A dedicated connection that LISTENs on one channel. The pool lends its connections per query, so
// none of them can hold a LISTEN; this one reconnects with backoff whenever it drops.
import pg from 'pg';
import type { Listening } from './sql-driver.ts';

const CHANNEL = /^[a-z_][a-z0-9_]*$/;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export function listenOn(
  config: pg.ClientConfig,
  channel: string,
  onPayload: (payload: string) => void,
  onReady: () => void,
): Listening {
  if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let delay = FIRST_RETRY_MS;

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ application_name: 'colony-listen', ...config });
    client = c;
    let lost = false;
    // Whichever comes first (a failed connect, an error, the end) schedules the one reconnect.
    const reconnect = () => {
      if (lost || closed) return;
      lost = true;
      client = undefined;
      c.end().catch(() => {});
      timer = setTimeout(connect, delay);
      timer.unref();
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    };
    c.on('error', reconnect);
    c.on('end', reconnect);
    c.on('notification', (n) => {
      if (n.channel === channel) onPayload(n.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      delay = FIRST_RETRY_MS;
      // Whatever was announced while we were not listening is lost: the caller looks for it now.
      if (!lost && !closed) onReady();
    } catch {
      reconnect();
    }
  };
  void connect();

  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
