// Sending the identity pages: HTML that is never cached, and the answer to a forged form post.
import type { FastifyReply } from 'fastify';
import { page } from '../../shared/html.ts';

const HTML = 'text/html; charset=utf-8';

export const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).type(HTML).header('cache-control', 'no-store').send(body);

export function forgedPost(reply: FastifyReply) {
  return html(
    reply,
    403,
    page(
      'Form expired',
      '<h1>This form has expired</h1><p>Go back, reload the page and submit it again.</p>',
    ),
  );
}
