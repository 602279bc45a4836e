// verifyToken: the first verifier that knows the token decides, and a cached answer needs no promise.
import { describe, expect, it } from 'vitest';
import {
  bootstrapTokenVerifier,
  type CredentialVerifier,
  type Principal,
  type Verification,
  verifyToken,
} from '../../../api/shared/identity.ts';

const principal = (subject: string): Principal => ({
  type: 'user',
  subject,
  name: subject,
  scopes: [],
  offices: [],
  credential: 'api_key',
});

function verifier(name: string, answers: Record<string, Verification>, wait = false): CredentialVerifier {
  return {
    name,
    verify: (token) => {
      const answer = answers[token] ?? null;
      return wait ? Promise.resolve(answer) : answer;
    },
  };
}

describe('verifyToken', () => {
  it('answers without a promise when every verifier asked answers at once', () => {
    const a = principal('a');
    const result = verifyToken([verifier('one', {}), verifier('two', { t: a })], 't');
    expect(result).toBe(a);
  });

  it('answers null without a promise when no verifier knows the token', () => {
    expect(verifyToken([verifier('one', {}), verifier('two', {})], 't')).toBeNull();
  });

  it('keeps the order when an earlier verifier has to wait: its answer wins', async () => {
    const first = principal('first');
    const result = verifyToken(
      [verifier('slow', { t: first }, true), verifier('fast', { t: principal('second') })],
      't',
    );
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe(first);
  });

  it('asks the later verifiers after a waiting one that does not know the token', async () => {
    const second = principal('second');
    const result = verifyToken([verifier('slow', {}, true), verifier('fast', { t: second })], 't');
    expect(await result).toBe(second);
  });

  it('passes a refusal on as the answer', () => {
    expect(verifyToken([verifier('one', { t: { refused: 'another resource' } })], 't')).toEqual({
      refused: 'another resource',
    });
  });

  it('verifies the bootstrap token without a promise, and refuses any other', () => {
    const bootstrap = bootstrapTokenVerifier('s3cret-bootstrap');
    expect(verifyToken([bootstrap], 's3cret-bootstrap')).toMatchObject({ subject: 'operator:bootstrap' });
    expect(verifyToken([bootstrap], 'wrong')).toBeNull();
  });
});
