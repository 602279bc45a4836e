// The headers every HTML page Colony renders carries. The pages take credentials, consent and payment
// details, so they refuse to be framed (clickjacking) and load nothing but their own inline styles.
import type { FastifyInstance } from 'fastify';

// No script source at all: the pages run no script. form-action is left open on purpose, because
// browsers apply it to the redirects after a submit (to an OAuth client or a payment processor).
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

/** What a page answered outside any page plugin's scope (an error page) sets itself. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-frame-options': 'DENY',
};

/**
 * Adds the page headers to every text/html answer of `app` that has not set its own policy. Each plugin
 * that renders pages calls it for its own scope, so the JSON surfaces carry no extra onSend hook.
 */
export function securePages(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html')) {
      if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', PAGE_CSP);
      reply.header('x-frame-options', PAGE_HEADERS['x-frame-options']);
    }
    done(null, payload);
  });
}
