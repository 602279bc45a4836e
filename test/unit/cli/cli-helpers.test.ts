// The pure pieces behind the commands: suggestions, env files, failures, tables and completion.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { closestMatch } from '../../../cli/closest-match.ts';
import { commandTable } from '../../../cli/command-table.ts';
import { configuredEntry, settledFor } from '../../../cli/commands/integrations/toggle.ts';
import { officeRows } from '../../../cli/commands/offices/list.ts';
import { completionScript } from '../../../cli/completion-script.ts';
import { parseEnvFile } from '../../../cli/env-file.ts';
import { renderTable } from '../../../cli/output.ts';
import { describeFailure } from '../../../cli/report-failure.ts';
import { runCli } from '../../../cli/run.ts';
import type { Me, OfficeIntegration } from '../../../cli/sdk/client.ts';
import { ColonyApiError } from '../../../cli/sdk/client.ts';

describe('closestMatch', () => {
  it.each([
    ['creat', ['list', 'create', 'revoke'], 'create'],
    ['--jsno', ['--json', '--endpoint'], '--json'],
    ['integration', ['integrations', 'keys'], 'integrations'],
    ['frobnicate', ['list', 'show'], undefined],
  ])('%s among %j → %s', (word, candidates, match) => {
    expect(closestMatch(word, candidates)).toBe(match);
  });
});

describe('parseEnvFile', () => {
  it('reads KEY=value lines, skipping comments and blanks, unquoting and dropping `export`', () => {
    expect(parseEnvFile('# token\nexport A=1\n\nB="two words"\nC=\'x=y\'\n')).toEqual({
      data: { A: '1', B: 'two words', C: 'x=y' },
      problems: [],
    });
  });

  it('names the line and key of a problem, never a value', () => {
    const { problems } = parseEnvFile('A=secret-one\nnot a pair secret-two\nA=secret-three\n1X=y');
    expect(problems).toEqual([
      'line 2: expected KEY=value',
      'line 3: A is set twice',
      'line 4: expected KEY=value (1X is not a name)',
    ]);
    expect(problems.join(' ')).not.toMatch(/secret/);
    expect(parseEnvFile('# nothing\n').problems).toEqual(['no KEY=value lines']);
  });
});

const problem = (status: number, code: string) =>
  new ColonyApiError({ type: 'about:blank', title: code, status, code, detail: `${code} detail` });

describe('describeFailure', () => {
  it.each([
    [problem(401, 'unauthorized'), 3, /colony login/],
    [problem(403, 'insufficient_scope'), 3, /colony login/],
    [problem(404, 'not_found'), 4, /list commands/],
    [problem(409, 'conflict'), 1, undefined],
    [problem(429, 'rate_limited'), 1, /retry/],
  ])('%s exits %i with a next step', (err, code, hint) => {
    const failure = describeFailure(err);
    expect(failure.code).toBe(code);
    if (hint) expect(failure.hint).toMatch(hint);
    else expect(failure.hint).toBeUndefined();
  });
});

describe('renderTable', () => {
  const rows = [
    { id: 'a', n: 5 },
    { id: 'longer', n: 12 },
  ];
  const columns = [
    { header: 'id', cell: (r: (typeof rows)[number]) => r.id },
    { header: 'count', cell: (r: (typeof rows)[number]) => String(r.n), align: 'right' as const },
  ];

  it('aligns columns two spaces apart, with headers on a terminal only', () => {
    expect(renderTable(rows, columns, false)).toEqual(['a        5', 'longer  12']);
    expect(renderTable(rows, columns, true)).toEqual(['ID      COUNT', 'a           5', 'longer     12']);
  });
});

describe('integrations enable', () => {
  const entry = (
    status: string,
    agents: { agentName: string; enabled: boolean }[],
    instanceLabel: string | null = null,
  ) =>
    ({
      integrationId: 'slack',
      instanceLabel,
      registration: { Status: status, SecretName: `slack-${instanceLabel ?? 'main'}` },
      conditions: [],
      connection: null,
      agents: agents.map((a) => ({ ...a, conditions: [] })),
    }) as unknown as OfficeIntegration;

  it('finds the configured integration, or the instance asked for', () => {
    const list = [entry('active', [], null), entry('active', [], 'eu')];
    expect(configuredEntry(list, 'slack', undefined)?.registration.SecretName).toBe('slack-main');
    expect(configuredEntry(list, 'slack', 'eu')?.registration.SecretName).toBe('slack-eu');
    expect(configuredEntry(list, 'github', undefined)).toBeUndefined();
  });

  it('waits until the integration is active for that agent, or in error', () => {
    const settled = settledFor('support');
    expect(settled(entry('configured', []))).toBe(false);
    expect(settled(entry('active', [{ agentName: 'other', enabled: true }]))).toBe(false);
    expect(settled(entry('active', [{ agentName: 'support', enabled: true }]))).toBe(true);
    expect(settled(entry('error', []))).toBe(true);
  });
});

describe('offices list', () => {
  const me = { offices: ['acme', 'beta'], account: null } as unknown as Me;
  it('lists a person’s memberships, else the offices a key is limited to', () => {
    expect(officeRows(me)).toEqual([
      { officeId: 'acme', role: null },
      { officeId: 'beta', role: null },
    ]);
    expect(
      officeRows({ ...me, account: { memberships: [{ officeId: 'acme', role: 'owner' }] } } as unknown as Me),
    ).toEqual([{ officeId: 'acme', role: 'owner' }]);
    expect(officeRows({ ...me, offices: '*' })).toEqual([]);
  });
});

describe('completion scripts', () => {
  it('bash completes commands, subcommands, flags and flag choices', () => {
    const complete = (words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `${completionScript('bash', commandTable)}\nCOMP_WORDS=(${words.map((w) => `"${w}"`).join(' ')}); COMP_CWORD=${words.length - 1}; _colony; echo "\${COMPREPLY[*]}"`,
        ],
        { encoding: 'utf8' },
      ).trim();
    expect(complete(['colony', 'ba'])).toBe('backups');
    expect(complete(['colony', 'integrations', 'secret', ''])).toBe('set delete');
    expect(complete(['colony', 'backups', 'list', '--st'])).toBe('--status');
    expect(complete(['colony', 'backups', 'list', '--status', 'f'])).toBe('failed');
  });

  it('zsh and fish name every command of the table', () => {
    for (const shell of ['zsh', 'fish'] as const) {
      const script = completionScript(shell, commandTable);
      for (const c of commandTable.commands)
        expect(script, `${shell}: ${c.path.join(' ')}`).toContain(c.path.at(-1));
    }
    expect(completionScript('zsh', commandTable)).toMatch(/^#compdef colony/);
  });
});

describe('the command line before a command', () => {
  const colony = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, cwd: '/' });
    return { code, out, err };
  };

  it('prints the command list for no arguments, -h and --help', async () => {
    for (const argv of [[], ['-h'], ['--help']]) {
      const r = await colony(...argv);
      expect(r.code).toBe(0);
      expect(r.out.join('\n')).toMatch(
        /^colony: run and operate Colony[\s\S]*\n {2}backups +Snapshot offices/,
      );
    }
  });

  it('says where a global flag goes, and suggests one that is misspelt', async () => {
    expect((await colony('--json', 'whoami')).err[0]).toBe(
      'colony: --json goes after the command: colony <command> --json',
    );
    expect(await colony('--jsn', 'whoami')).toMatchObject({
      code: 2,
      err: [
        'colony: unknown flag --jsn before the command; did you mean --json?',
        'hint: run `colony --help` for usage',
      ],
    });
  });

  it('--version prints the CLI version, and the server’s as unknown when it does not answer', async () => {
    const r = await colony('--version', '--endpoint', 'http://127.0.0.1:9');
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^colony \d+\.\d+\.\d+$/);
    expect(r.out[1]).toMatch(/^server unknown \(http:\/\/127\.0\.0\.1:9: /);
  });
});
