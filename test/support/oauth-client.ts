// A real OAuth client (openid-client) registered dynamically, with approvals scripted over HTTP
// through Colony's own sign-up and consent pages.
import * as oauth from 'openid-client';
import { HttpBrowser } from './http-browser.ts';

export const TEST_REDIRECT = 'http://127.0.0.1:9/callback';
const insecure = { execute: [oauth.allowInsecureRequests] };
let seq = 0;

export function newPerson(name = 'Grace Hopper') {
  return { name, email: `p${++seq}-${Date.now()}@example.com`, password: 'a long enough passphrase' };
}

export class OAuthTestClient {
  readonly config: oauth.Configuration;
  readonly baseUrl: string;

  private constructor(baseUrl: string, config: oauth.Configuration) {
    this.baseUrl = baseUrl;
    this.config = config;
  }

  /** Registers a public client (RFC 7591) with the server's discovered registration endpoint. */
  static async register(baseUrl: string, clientName = 'Test MCP client'): Promise<OAuthTestClient> {
    const config = await oauth.dynamicClientRegistration(
      new URL(baseUrl),
      {
        client_name: clientName,
        redirect_uris: [TEST_REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      },
      oauth.None(),
      insecure,
    );
    return new OAuthTestClient(baseUrl, config);
  }

  /** A browser with a freshly signed-up person in it. */
  async person(name?: string): Promise<HttpBrowser> {
    const browser = new HttpBrowser(this.baseUrl);
    await browser.signUp(newPerson(name));
    return browser;
  }

  /**
   * Runs an authorization request (code + PKCE S256) in `browser`: the consent page it showed, if any,
   * is approved. `callback` is where it ended: the client's redirect URI with a code or an error.
   */
  async authorize(params: Record<string, string>, browser: HttpBrowser) {
    const verifier = oauth.randomPKCECodeVerifier();
    const state = oauth.randomState();
    const url = oauth.buildAuthorizationUrl(this.config, {
      redirect_uri: TEST_REDIRECT,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...params,
    });
    const step = await browser.follow(url.href);
    const consent = step.url.startsWith(this.baseUrl) ? await step.response.text() : undefined;
    const uid = consent && /action="\/oauth\/interaction\/([^/"]+)\/confirm"/.exec(consent)?.[1];
    const done = uid ? await browser.submit(`/oauth/interaction/${uid}/confirm`, {}) : step;
    return { callback: new URL(done.url), verifier, state, consent };
  }

  /** Authorization code + PKCE S256, approved on the consent page by the person in `browser`. */
  async tokens(params: Record<string, string>, browser: HttpBrowser) {
    const { callback, verifier, state } = await this.authorize(params, browser);
    return oauth.authorizationCodeGrant(this.config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
  }

  revoke(token: string): Promise<void> {
    return oauth.tokenRevocation(this.config, token);
  }
}
