// Documentation tables that must match the code: the problem catalogue, the configuration variables
// and the hosts credential checks contact.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { acpErrorCatalogue, acpErrors } from '../../api/acp/errors.ts';
import { envSchema } from '../../api/config.ts';
import { frameworkErrorKinds } from '../../api/shared/error-catalogue.ts';
import { problemCatalogue, problemErrors } from '../../api/shared/problem.ts';
import { ucpErrorCatalogue, ucpErrors } from '../../api/ucp/errors.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';

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

// Commerce tables put the status third, so the problem+json row pattern above never matches them.
function commerceRows(markdown: string, section: string) {
  const text = markdown.split(`## ${section}`)[1]?.split('\n## ')[0] ?? '';
  return [...text.matchAll(/^\| `([a-z_]+)` \| `([a-z_]+)` \| (\d+) \| ([^|]+) \|$/gm)].map((m) => ({
    code: m[1],
    kind: m[2],
    status: Number(m[3]),
    description: m[4]?.trim(),
  }));
}

describe('docs/errors.md commerce catalogues', () => {
  it('lists exactly the ACP catalogue', () => {
    expect(commerceRows(doc('errors.md'), 'ACP errors')).toEqual(
      Object.entries(acpErrorCatalogue).map(([code, e]) => ({
        code,
        kind: e.type,
        status: e.status,
        description: e.description,
      })),
    );
  });

  it('lists exactly the UCP catalogue', () => {
    expect(commerceRows(doc('errors.md'), 'UCP errors')).toEqual(
      Object.entries(ucpErrorCatalogue).map(([code, e]) => ({
        code,
        kind: e.severity,
        status: e.status,
        description: e.description,
      })),
    );
  });
});

describe('docs/errors.md framework failures', () => {
  it('lists the code each catalogue built by errorCatalogue answers every framework failure with', () => {
    const section = doc('errors.md').split('## Framework failures')[1]?.split('\n## ')[0] ?? '';
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \| `([a-z_]+)` \| `([a-z_]+)` \| `([a-z_]+)` \|$/gm)];
    expect(rows.map((m) => m.slice(1))).toEqual(
      frameworkErrorKinds.map((kind) => [
        kind,
        problemErrors.framework[kind],
        acpErrors.framework[kind],
        ucpErrors.framework[kind],
      ]),
    );
  });
});

describe('docs/configuration.md', () => {
  it('documents every environment variable the server reads, and no others', () => {
    const documented = [...doc('configuration.md').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(envSchema.shape).sort());
  });
});

describe('docs/install.md credential check egress', () => {
  it('lists exactly the hosts the registry’s credential checks contact', () => {
    const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
    const expected = registry
      .list()
      .flatMap((m) =>
        m.credentialCheck
          ? [{ id: m.id, host: new URL(m.credentialCheck.url.replace(/\{\{[^}]*\}\}/g, 'x')).host }]
          : [],
      )
      .sort((a, b) => a.id.localeCompare(b.id));
    const section = doc('install.md').split('## Credential check egress')[1]?.split('\n## ')[0] ?? '';
    const rows = [...section.matchAll(/^\| `([a-z0-9-]+)` \| `([a-z0-9.-]+)` \|$/gm)].map((m) => ({
      id: m[1],
      host: m[2],
    }));
    expect(rows).toEqual(expected);
  });
});
