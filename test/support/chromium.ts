// Headless Debian Chromium for the page tests (playwright-core drives it) against a sandbox server on
// a real port, and the checkout calls an agent makes over HTTP in those tests.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { freePort, startTestServer, type TestServer } from './server.ts';

export const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (make test does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** An ACP agent of the server at `base`: each call answers its status and JSON body. */
export function acpAgent(base: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'api-version': '2026-04-17' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

export interface BrowserTest {
  server: TestServer;
  browser: Browser;
  base: string;
  agent: ReturnType<typeof acpAgent>;
  close(): Promise<void>;
}

/** A sandbox server listening on loopback, and Chromium to open its pages. */
export async function startBrowserTest(): Promise<BrowserTest> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startTestServer({ COLONY_BASE_URL: base, COLONY_ENVIRONMENT: 'sandbox' });
  await server.app.listen({ port, host: '127.0.0.1' });
  const browser = await launchChromium();
  return {
    server,
    browser,
    base,
    agent: acpAgent(base),
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
