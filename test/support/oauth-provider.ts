// A real OAuth 2 / OIDC provider (oidc-provider) on loopback, playing an integration's provider in
// the Connect tests. Its login and consent steps are answered by a person who always says yes.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestProvider {
  issuer: string;
  provider: Provider;
  /** Plays the browser at the provider: follows redirects (cookies kept) until it leaves for the client. */
  authorize(url: string): Promise<URL>;
  close(): Promise<void>;
}

export interface TestProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  accessTokenTtlSeconds?: number;
}

async function approve(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: 'provider-user-1' } });
    return;
  }
  const grant = new provider.Grant({
    accountId: details.session?.accountId ?? 'provider-user-1',
    clientId: String(details.params.client_id ?? ''),
  });
  grant.addOIDCScope(String(details.params.scope ?? 'openid'));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

function keepCookies(jar: Map<string, string>, setCookies: string[]): void {
  for (const c of setCookies) {
    const pair = c.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq > 0) jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
}

export async function startTestProvider(opts: TestProviderOptions): Promise<TestProvider> {
  let issuer = '';
  let provider: Provider | undefined;
  const server: Server = createServer((req, res) => {
    if (!provider) return res.writeHead(503).end();
    if (req.url?.startsWith('/interaction/')) {
      approve(provider, req, res).catch((err: Error) => res.writeHead(500).end(err.message));
      return;
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signingKey = {
    ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
    kid: 'k1',
    use: 'sig',
    alg: 'RS256',
  };
  provider = new Provider(issuer, {
    clients: [
      {
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    features: {
      revocation: { enabled: true, allowedPolicy: () => true },
      devInteractions: { enabled: false },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    ttl: {
      AccessToken: opts.accessTokenTtlSeconds ?? 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      RefreshToken: 86_400,
      IdToken: 3600,
    },
    jwks: { keys: [signingKey] },
    issueRefreshToken: () => true,
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
  });
  const p = provider;
  p.on('server_error', (_ctx, err) => console.error('oidc-provider server_error', err));

  return {
    issuer,
    provider: p,
    async authorize(start: string) {
      const jar = new Map<string, string>();
      let url = new URL(start);
      for (let hops = 0; hops < 10; hops++) {
        const res = await fetch(url, {
          redirect: 'manual',
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
        });
        keepCookies(jar, res.headers.getSetCookie());
        const location = res.headers.get('location');
        if (!location)
          throw new Error(`the provider answered ${res.status} without a redirect: ${await res.text()}`);
        url = new URL(location, url);
        if (url.origin !== issuer) return url;
      }
      throw new Error('the provider redirected too many times');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
