// Which driver failures mean "the database is unreachable" (503) rather than "the statement is wrong".
import { describe, expect, it } from 'vitest';
import { isUnavailable } from '../../../api/storage/postgres-driver.ts';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isUnavailable (PostgreSQL)', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:5432')],
    ['an unknown host', withCode('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal')],
    ['a pool timeout', new Error('timeout exceeded when trying to connect')],
    ['a connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['an admin shutdown', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server starting up', withCode('57P03', 'the database system is starting up')],
    ['too many connections', withCode('53300', 'sorry, too many clients already')],
    ['a connection exception', withCode('08006', 'connection failure')],
    ['every address refused', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')])],
  ])('counts %s', (_name, err) => {
    expect(isUnavailable(err)).toBe(true);
  });

  it.each([
    ['a syntax error', withCode('42601', 'syntax error at or near "SELEC"')],
    ['a unique violation', withCode('23505', 'duplicate key value')],
    ['a statement cancelled by timeout', withCode('57014', 'canceling statement due to statement timeout')],
    ['a thrown string', 'boom'],
  ])('does not count %s', (_name, err) => {
    expect(isUnavailable(err)).toBe(false);
  });
});
