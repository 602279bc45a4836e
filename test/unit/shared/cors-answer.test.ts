// The CORS decisions: which origins an allow-list lets through, and the headers of each answer.
import { describe, expect, it } from 'vitest';
import { ANY_ORIGIN, allowListed, corsAnswer, originAllowed } from '../../../api/shared/cors-answer.ts';

const own = allowListed(['http://localhost:3000', 'https://app.example']);

describe('originAllowed', () => {
  it.each([
    ['http://localhost:3000', true],
    ['https://app.example', true],
    [undefined, true],
    ['http://localhost:3000.evil.test', false],
    ['https://localhost:3000', false],
    ['http://localhost:3001', false],
    ['http://localhost', false],
    ['http://app.example', false],
    ['https://app.example.evil.test', false],
    ['https://evil.test/https://app.example', false],
    ['HTTPS://APP.EXAMPLE', false],
    ['null', false],
    ['', false],
  ])('an allow-list judges Origin %s: %s', (origin, allowed) => {
    expect(originAllowed(own, origin)).toBe(allowed);
  });

  it('lets every origin through when the list holds *', () => {
    expect(allowListed(['http://localhost:3000', '*'])).toEqual(ANY_ORIGIN);
    expect(originAllowed(ANY_ORIGIN, 'https://anything.test')).toBe(true);
  });
});

describe('corsAnswer', () => {
  const preflight = { method: 'OPTIONS', requestMethod: 'POST' };

  it('answers a preflight from any page with * and the headers clients send', () => {
    const answer = corsAnswer(ANY_ORIGIN, { ...preflight, origin: 'https://random.test' });
    expect(answer.preflight).toBe(true);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    const allowed = answer.headers['access-control-allow-headers']?.toLowerCase().split(', ');
    expect(allowed).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'mcp-session-id', 'idempotency-key']),
    );
    expect(answer.headers).not.toHaveProperty('access-control-allow-credentials');
  });

  it('leaves CORS headers off any-origin answers without an Origin, and varies by Origin either way', () => {
    const none = corsAnswer(ANY_ORIGIN, { method: 'GET', origin: undefined, requestMethod: undefined });
    expect(none).toEqual({ preflight: false, headers: { vary: 'Origin' } });
    const page = corsAnswer(ANY_ORIGIN, {
      method: 'GET',
      origin: 'https://x.example',
      requestMethod: undefined,
    });
    expect(page).toMatchObject({
      preflight: false,
      headers: { 'access-control-allow-origin': '*', vary: 'Origin' },
    });
    expect(page.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
  });

  it('echoes an allowed origin and varies by Origin', () => {
    const answer = corsAnswer(own, { ...preflight, origin: 'https://app.example' });
    expect(answer.preflight).toBe(true);
    expect(answer.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      vary: 'Origin',
    });
  });

  it.each([
    ['a disallowed origin', 'https://evil.test'],
    ['no origin', undefined],
  ])('gives %s nothing but Vary on an allow-list', (_name, origin) => {
    expect(corsAnswer(own, { ...preflight, origin })).toEqual({
      preflight: false,
      headers: { vary: 'Origin' },
    });
  });

  it('treats an OPTIONS request without Access-Control-Request-Method as no preflight', () => {
    const answer = corsAnswer(ANY_ORIGIN, {
      method: 'OPTIONS',
      origin: 'https://a.test',
      requestMethod: undefined,
    });
    expect(answer.preflight).toBe(false);
  });
});
