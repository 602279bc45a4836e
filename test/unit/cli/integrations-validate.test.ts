// `colony integrations validate [dir]`: for people writing their own manifests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../../../cli/run.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const manifest = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  name: id,
  description: `${id} tool`,
  icon: id,
  category: 'services',
  wizard: 'guide',
  requiredSecrets: [{ key: 'ACME_TOKEN', label: 'Token', type: 'password', required: true }],
  agentEnvVars: ['ACME_TOKEN'],
  version: '1.0.0',
  ...over,
});

function folder(manifests: Record<string, unknown>[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'colony-cli-'));
  dirs.push(dir);
  for (const m of manifests) {
    mkdirSync(join(dir, String(m.id)));
    writeFileSync(join(dir, String(m.id), 'manifest.yaml'), stringify(m));
    writeFileSync(join(dir, String(m.id), 'guide.md'), '# Guide\n');
  }
  return dir;
}

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: {},
    cwd: process.cwd(),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('colony integrations validate', () => {
  it('accepts the worked example of docs/integrations.md, which uses every layer but two', async () => {
    const doc = readFileSync(new URL('../../../docs/integrations.md', import.meta.url), 'utf8');
    const example = /```yaml\n(id: acme-crm[\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'colony-cli-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'acme-crm'));
    writeFileSync(join(dir, 'acme-crm', 'manifest.yaml'), example ?? '');
    writeFileSync(join(dir, 'acme-crm', 'guide.md'), '# Acme CRM\n');
    expect(await run('integrations', 'validate', dir)).toMatchObject({
      code: 0,
      out: '1 integration(s) valid: acme-crm',
    });
  });

  it('accepts the bundled registry', async () => {
    const r = await run('integrations', 'validate', 'integrations');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^14 integration\(s\) valid: anthropic, /);
  });

  it('accepts a folder whose manifests depend on bundled integrations', async () => {
    const dir = folder([manifest('acme', { dependsOn: ['llm'], composedWith: ['github'] })]);
    expect(await run('integrations', 'validate', dir)).toMatchObject({
      code: 0,
      out: '1 integration(s) valid: acme',
    });
  });

  it('exits 1 naming each file and field at fault', async () => {
    const dir = folder([
      manifest('acme', {
        cliInstalls: { apt: ['rm -rf /'] },
        taskTemplates: [{ name: 'x', title: 'X', prompt: 'p', schedule: 'every day' }],
      }),
      manifest('other', { dependsOn: ['nothing-like-it'] }),
    ]);
    const r = await run('integrations', 'validate', dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain('acme/manifest.yaml: cliInstalls.apt[0]: a Debian package name');
    expect(r.err).toContain('acme/manifest.yaml: taskTemplates[0].schedule: a cron schedule has five fields');
    expect(r.err).toContain(
      'other/manifest.yaml: dependsOn[0]: nothing-like-it is neither an integration id nor a capability',
    );
    expect(r.err).toContain('3 problem(s) found');
  });

  it('validates one integration folder on its own', async () => {
    const dir = folder([manifest('acme'), manifest('broken', { category: 'games' })]);
    expect((await run('integrations', 'validate', join(dir, 'acme'))).code).toBe(0);
    const broken = await run('integrations', 'validate', join(dir, 'broken'));
    expect(broken.code).toBe(1);
    expect(broken.err).toContain('broken/manifest.yaml: category:');
  });

  it('is the package bin: the real process exits non-zero on a bad folder', () => {
    const dir = folder([manifest('acme', { wizard: 'magic' })]);
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, ['cli/colony.js', 'integrations', 'validate', dir], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (e) {
      status = (e as { status: number }).status;
      stderr = (e as { stderr: string }).stderr;
    }
    expect(status).toBe(1);
    expect(stderr).toContain('acme/manifest.yaml: wizard:');
  });

  it('exits 2 naming an unknown command and the group help to read', async () => {
    const r = await run('integrations', 'frobnicate');
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'colony: unknown command "frobnicate" for "colony integrations"\nhint: run `colony integrations --help` for usage',
    );
    expect((await run('integrations', '--help')).out).toContain('validate');
  });
});
