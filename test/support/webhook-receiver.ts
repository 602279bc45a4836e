// An ACP order webhook receiver for tests: a real HTTP server on loopback that checks each request's
// Merchant-Signature with its own implementation of the documented scheme (HMAC-SHA256 over
// "<t>.<raw body>", hex, timestamp within 300 s) and answers as the test scripts it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface ReceivedEvent {
  requestId: string;
  /** Whether the signature checked out under the receiver's secret. */
  verified: boolean;
  body: { type: string; data: Record<string, unknown> };
  raw: string;
  /** The status the receiver answered (0: it never answered). */
  answered: number;
}

/** What the next request gets: a status, or `hang` (never answered, so the sender times out). */
export type Answer = number | 'hang';

export function verifyMerchantSignature(header: string | undefined, raw: string, secret: string): boolean {
  const m = /^t=(\d+),v1=([a-f0-9]{64})$/.exec(header ?? '');
  if (!m?.[1] || !m[2]) return false;
  if (Math.abs(Date.now() / 1000 - Number(m[1])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${raw}`, 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(m[2], 'hex'));
}

export class WebhookReceiver {
  readonly received: ReceivedEvent[] = [];
  /** Answers for the next requests, in order; then 200. */
  readonly script: Answer[] = [];
  private server: Server | undefined;
  private readonly secret: string;
  url = '';

  constructor(secret: string) {
    this.secret = secret;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        raw += chunk;
      });
      req.on('end', () => {
        const answer = this.script.shift() ?? 200;
        const event: ReceivedEvent = {
          requestId: String(req.headers['request-id'] ?? ''),
          verified:
            req.headers['content-type'] === 'application/json' &&
            verifyMerchantSignature(
              req.headers['merchant-signature'] as string | undefined,
              raw,
              this.secret,
            ),
          body: JSON.parse(raw),
          raw,
          answered: answer === 'hang' ? 0 : answer,
        };
        this.received.push(event);
        if (answer === 'hang') return;
        res.writeHead(answer, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ received: answer < 300 }));
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/order_events`;
    return this;
  }

  /** The requests that were accepted (answered 2xx). */
  accepted(): ReceivedEvent[] {
    return this.received.filter((e) => e.answered >= 200 && e.answered < 300);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
