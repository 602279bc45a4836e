// docs/cli.md is the command table rendered: a command, flag or example changed without
// regenerating it fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commands, commandTable } from '../../../cli/command-table.ts';
import { renderReference } from '../../../cli/reference-doc.ts';

const doc = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');

describe('docs/cli.md', () => {
  it('is what the command table renders (node scripts/generate-cli-reference.ts writes it)', () => {
    expect(doc).toBe(renderReference(commandTable));
  });

  it('has a section, the flags and an example for every command', () => {
    for (const c of commands) {
      const section = doc.split(`### colony ${c.path.join(' ')}\n`)[1]?.split('\n### ')[0] ?? '';
      expect(section, c.path.join(' ')).toContain(c.summary);
      for (const flag of Object.keys(c.flags))
        expect(section, `${c.path.join(' ')} --${flag}`).toContain(`--${flag}`);
      expect(c.examples.length, c.path.join(' ')).toBeGreaterThan(0);
      for (const e of c.examples) expect(section).toContain(e);
    }
  });
});
