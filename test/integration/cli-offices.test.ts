// The office-manager commands against the real API on SQLite and PostgreSQL, with a real office (a
// labelled namespace on the test cluster): members, tasks, and an integration's credentials stored,
// enabled and disabled for an agent, as a person would run them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/run.ts';
import { createOffice, issueKeys, type TestOffice } from '../support/backups-office.ts';
import { installCrds, kubeconfigPath } from '../support/kube.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

describe.each(storageTargets)('colony offices and integrations on $name', (target) => {
  let s: TestServer;
  let office: TestOffice;
  let endpoint: string;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    await installCrds();
    office = await createOffice('clio');
    s = await startTestServerOn(target, { KUBECONFIG: kubeconfigPath() }, { runJobs: false });
    endpoint = await s.app.listen({ port: 0, host: '127.0.0.1' });
    ({ owner: key } = (await issueKeys(s, {
      owner: { scopes: ['offices:read', 'offices:write'], offices: [office.id] },
    })) as { owner: string });
    dir = mkdtempSync(join(tmpdir(), 'colony-cli-offices-'));
    writeFileSync(join(dir, 'linear.env'), 'LINEAR_API_KEY=lin_api_never_printed\n');
  });
  afterAll(async () => {
    await s?.close();
    await office?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function colony(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli([...argv, '--endpoint', endpoint], {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { COLONY_API_KEY: key, COLONY_CONFIG_DIR: dir },
      cwd: dir,
    });
    return { code, out, err, all: [...out, ...err].join('\n') };
  }

  it('offices list shows the office the key’s account owns', async () => {
    const r = await colony('offices', 'list');
    expect(r).toMatchObject({ code: 0, out: [`${office.id}  owner`] });
    expect(JSON.parse((await colony('offices', 'list', '--json')).out.join('\n'))).toEqual([
      { officeId: office.id, role: 'owner' },
    ]);
  });

  it('integrations status says nothing is configured yet, and --json prints []', async () => {
    const r = await colony('integrations', 'status', '--office', office.id);
    expect(r.code).toBe(0);
    expect(r.out).toEqual([]);
    expect(r.err[0]).toMatch(
      /^No integrations configured in \S+ yet; add one with `colony integrations secret set/,
    );
    expect((await colony('integrations', 'status', '--office', office.id, '--json')).out).toEqual(['[]']);
  });

  it('secret set stores credentials from an env file and never prints them', async () => {
    const r = await colony(
      'integrations',
      'secret',
      'set',
      'linear',
      '--office',
      office.id,
      '--from-env-file',
      'linear.env',
    );
    expect(r.code, r.all).toBe(0);
    expect(r.out[0]).toMatch(new RegExp(`^Saved LINEAR_API_KEY for linear in ${office.id} \\(\\w+\\)$`));
    expect(r.all).not.toContain('lin_api_never_printed');
    const status = await colony('integrations', 'status', '--office', office.id);
    expect(status.out[0]).toMatch(/^linear {2}\w+ +-$/);
  });

  it('enable turns it on for an agent, which files the integration’s task; disable turns it off', async () => {
    const on = await colony('integrations', 'enable', 'linear', '--office', office.id, '--agent', 'pm');
    expect(on).toMatchObject({ code: 0, out: [`Enabled linear for pm in ${office.id}`] });
    const tasks = JSON.parse(
      (await colony('offices', 'tasks', 'list', '--office', office.id, '--json')).out.join('\n'),
    );
    expect(tasks.length).toBeGreaterThan(0);
    const off = await colony('integrations', 'disable', 'linear', '--office', office.id, '--agent', 'pm');
    expect(off).toMatchObject({ code: 0, out: [`Disabled linear for pm in ${office.id}`] });
  });

  it('enable names an integration that is not configured, exit 4, with the command that configures it', async () => {
    const r = await colony('integrations', 'enable', 'github', '--office', office.id, '--agent', 'pm');
    expect(r.code).toBe(4);
    expect(r.err).toEqual([
      `colony: github is not configured in office ${office.id}`,
      `hint: store its credentials first: colony integrations secret set github --office ${office.id} --from-env-file <file>`,
    ]);
  });

  it('tasks: create, show, move to done, and list by status', async () => {
    const created = await colony(
      'offices',
      'tasks',
      'create',
      '--office',
      office.id,
      '--title',
      'Report',
      '--prompt',
      'Sum up the week',
    );
    expect(created.code, created.all).toBe(0);
    const id = created.out[0]?.split(' ')[0] as string;
    expect(created.out).toEqual([`${id} open`]);
    expect((await colony('offices', 'tasks', 'show', id, '--office', office.id)).out).toEqual([
      `${id} open  Report`,
      '',
      'Sum up the week',
    ]);
    expect(
      (await colony('offices', 'tasks', 'update', id, '--office', office.id, '--status', 'done')).out,
    ).toEqual([`${id} done`]);
    const done = await colony('offices', 'tasks', 'list', '--office', office.id, '--status', 'done');
    expect(done.out).toHaveLength(1);
    expect(done.out[0]).toMatch(new RegExp(`^${id} {2}done {2}\\S+ {2}Report$`));
    const missing = await colony(
      'offices',
      'tasks',
      'show',
      'task_00000000000000000000',
      '--office',
      office.id,
    );
    expect(missing.code).toBe(4);
  });

  it('members: list, add by email, remove', async () => {
    const listed = await colony('offices', 'members', 'list', '--office', office.id);
    expect(listed.out).toHaveLength(1);
    expect(listed.out[0]).toMatch(/^acct_\S+ {2}owner-\S+@backups\.test {2}owner {2}owner$/);
    const { accounts } = s.app.colony.identity;
    const email = `ada-${office.id}@example.com`;
    const signed = await accounts.signUp({ email, name: 'Ada', password: 'a-long-enough-password-1' });
    if (!signed.ok) throw new Error('sign-up failed');
    const added = await colony('offices', 'members', 'add', '--office', office.id, '--email', email);
    expect(added).toMatchObject({ code: 0, out: [`${email} is operator of ${office.id}`] });
    const removed = await colony('offices', 'members', 'remove', signed.account.id, '--office', office.id);
    expect(removed).toMatchObject({ code: 0, out: [`Removed ${signed.account.id} from ${office.id}`] });
  });

  it('secret delete removes the integration from the office', async () => {
    const r = await colony('integrations', 'secret', 'delete', 'linear', '--office', office.id);
    expect(r).toMatchObject({ code: 0, out: [`Deleted linear from ${office.id}`] });
  });
});
