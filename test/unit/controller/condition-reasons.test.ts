// docs/operator.md's reasons tables against the reasons the controller can write.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** CamelCase reasons the reconcilers set: `reason: 'X'`, `refuse('X', …)`, `no('X', …)` and ternaries. */
function reasonsInCode(): string[] {
  const found = new Set<string>();
  for (const file of readdirSync(new URL('controller/reconcilers/', root))) {
    if (!file.endsWith('.ts')) continue;
    const code = read(`controller/reconcilers/${file}`);
    for (const m of code.matchAll(/(?:reason:\s*|refuse\(|\bno\()([^,}\n]+)/g)) {
      for (const literal of (m[1] ?? '').matchAll(/'([A-Z][A-Za-z0-9]+)'/g)) found.add(literal[1] ?? '');
    }
  }
  return [...found].sort();
}

/** Reasons named in the first column of the tables under "Reading status". */
function reasonsInDocs(): string[] {
  const section = read('docs/operator.md').split('## Reading status')[1]?.split('\n## ')[0] ?? '';
  const rows = [...section.matchAll(/^\| ((?:`[A-Z][A-Za-z0-9]+`(?:, )?)+) \|/gm)];
  return [
    ...new Set(rows.flatMap((r) => [...(r[1] ?? '').matchAll(/`([^`]+)`/g)].map((x) => x[1] ?? ''))),
  ].sort();
}

describe('docs/operator.md', () => {
  it('explains every condition reason the controller sets, and no other', () => {
    const code = reasonsInCode();
    expect(code).toContain('MembersRuleViolated');
    expect(code).toContain('Active');
    expect(reasonsInDocs()).toEqual(code);
  });
});
