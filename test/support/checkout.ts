// Helpers for checkout tests: a server with a clock the test moves, and short request builders.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Storage } from '../../api/app-storage.ts';
import { startTestServer, type TestServer } from './server.ts';

export interface ClockedServer extends TestServer {
  clock: { now: number; advance(ms: number): void };
}

export const START = Date.parse('2026-11-23T10:00:00Z');
export const HOUR = 60 * 60 * 1000;

export async function startClockedServer(
  env: Record<string, string> = {},
  opts: { storage?: Storage } = {},
): Promise<ClockedServer> {
  const clock = {
    now: START,
    advance(ms: number) {
      clock.now += ms;
    },
  };
  const server = await startTestServer(
    { COLONY_CHECKOUT_RATE_LIMIT: '10000', ...env },
    { now: () => clock.now, runJobs: false, ...opts },
  );
  return { ...server, clock };
}

export function acp(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(payload === undefined
      ? {}
      : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  });
}

export const planLine = (id = 'plan_pro_monthly', quantity?: number) => ({
  item: { id },
  ...(quantity === undefined ? {} : { quantity }),
});
