// Documentation tables that must match the code: the problem catalogue and the configuration variables.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../api/config.ts';
import { problemCatalogue } from '../../api/shared/problem.ts';

const doc = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

describe('docs/errors.md', () => {
  it('lists exactly the catalogue, with the same status, title and description', () => {
    const rows = [...doc('errors.md').matchAll(/^\| `([a-z_]+)` \| (\d+) \| ([^|]+) \| ([^|]+) \|$/gm)].map(
      (m) => ({
        code: m[1],
        status: Number(m[2]),
        title: m[3]?.trim(),
        description: m[4]?.trim(),
      }),
    );
    const expected = Object.entries(problemCatalogue).map(([code, p]) => ({
      code,
      status: p.status,
      title: p.title,
      description: p.description,
    }));
    expect(rows).toEqual(expected);
  });
});

describe('docs/configuration.md', () => {
  it('documents every environment variable the server reads, and no others', () => {
    const documented = [...doc('configuration.md').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(envSchema.shape).sort());
  });
});
