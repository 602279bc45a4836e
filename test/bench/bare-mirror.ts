// A bare Fastify route that answers with the very bytes a Colony route sends: the same body and the
// same headers, so the comparison measures the work behind a response, not its size. The body goes
// out as a string, the cheapest way a bare route can send it (one write with the head; a Buffer body
// is a second chunk of a writev, several µs more per response here).
import type { FastifyInstance } from 'fastify';

/** The headers Colony adds that a bare route repeats; Node adds date, connection and keep-alive to both. */
const MIRRORED_HEADERS = [
  'content-type',
  'vary',
  'etag',
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

/** One answer of Colony's, as fetch or inject reads it. */
export interface CapturedAnswer {
  body: Buffer;
  header(name: string): string | undefined;
}

/** Registers GET `route` on `bare`, answering with `answer`'s body and headers. */
export function mirrorRoute(bare: FastifyInstance, route: string, answer: CapturedAnswer): void {
  const headers: Record<string, string> = {};
  for (const name of MIRRORED_HEADERS) {
    const value = answer.header(name);
    if (value !== undefined) headers[name] = value;
  }
  const text = answer.body.toString('utf8');
  bare.get(route, async (_request, reply) => reply.headers(headers).send(text));
}

/** Colony's answer to a GET, read over HTTP; anything but 200 is an error of the bench. */
export async function captureAnswer(
  url: string,
  headers: Record<string, string> = {},
): Promise<CapturedAnswer> {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
  const body = Buffer.from(await res.arrayBuffer());
  return { body, header: (name) => res.headers.get(name) ?? undefined };
}
