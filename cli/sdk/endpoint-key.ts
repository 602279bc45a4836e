// Pure: one spelling per endpoint, so `https://x.dev/` and `https://X.dev` share a login. Apart from
// the credential store so a command with an API key never loads the store (or zod).

export class CredentialStoreError extends Error {
  override readonly name = 'CredentialStoreError';
}

export function endpointKey(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new CredentialStoreError(`${endpoint} is not a URL (expected e.g. https://colony.example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new CredentialStoreError(`${endpoint}: only http and https endpoints are supported`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
