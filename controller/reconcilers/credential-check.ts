// Runs the credentialCheck layer's request and words the verdict; never puts a credential in it.
import type { CheckRequest } from '../render/integration-layers.ts';

export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

export async function runCredentialCheck(
  req: CheckRequest,
  fetcher: Fetcher = fetch,
): Promise<{ ok: boolean; message: string }> {
  const host = new URL(req.url).host;
  try {
    const res = await fetcher(req.url, {
      method: req.method,
      headers: req.headers,
      ...(req.body !== undefined ? { body: req.body } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    await res.body?.cancel();
    if (req.expectStatus.includes(res.status))
      return { ok: true, message: `${host} accepted the credentials (HTTP ${res.status})` };
    return {
      ok: false,
      message: `${host} answered HTTP ${res.status}; expected ${req.expectStatus.join(' or ')}`,
    };
  } catch (err) {
    const why =
      (err as Error).name === 'TimeoutError'
        ? `no answer within ${req.timeoutMs / 1000} s`
        : 'the request failed';
    return { ok: false, message: `${host}: ${why}` };
  }
}
