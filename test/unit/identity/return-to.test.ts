// safeReturnTo: only same-origin relative paths survive.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETURN_TO, safeReturnTo } from '../../../api/identity/pages/return-to.ts';

describe('safeReturnTo', () => {
  it.each(['/account', '/connect/github?office=acme&instance=a', '/oauth/consent/abc', '/'])(
    'keeps the same-origin path %s',
    (path) => {
      expect(safeReturnTo(path)).toBe(path);
    },
  );

  it.each([
    ['a protocol-relative URL', '//evil.example/phish'],
    ['a backslash that browsers read as a slash', '/\\evil.example'],
    ['a backslash further in', '/a\\b'],
    ['an absolute URL', 'https://evil.example/'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a relative path', 'account'],
    ['a control character', '/acc\nount'],
    ['a tab', '/\t/evil.example'],
    ['an empty value', ''],
    ['an over-long value', `/${'a'.repeat(2048)}`],
    ['a non-string', ['/account']],
  ])('rejects %s', (_what, value) => {
    expect(safeReturnTo(value)).toBe(DEFAULT_RETURN_TO);
  });
});
