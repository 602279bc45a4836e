// `colony --help` starts fast because it loads only the command table and the help: no command
// module, no SDK, no zod, no openid-client. A real Node process records every module it resolves.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const script = `
import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.push(r.url); return r; } });
const { runCli } = await import('./cli/run.ts');
const argv = JSON.parse(process.argv[1]);
await runCli(argv, { out() {}, err() {}, env: { COLONY_API_KEY: 'col_x' }, cwd: process.cwd() });
console.log(JSON.stringify(seen));
`;

function modulesLoadedBy(argv: string[]): string[] {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(argv)], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

const heavy = (urls: string[]) =>
  urls.filter((u) => /\/cli\/(sdk|commands)\/|\/node_modules\/(zod|openid-client|yaml)\//.test(u));

describe('start-up', () => {
  it.each([[['--help']], [['keys', '--help']], [['backups', 'create', '--help']], [['nope']]])(
    'colony %j loads no command module, SDK or heavy dependency',
    (argv) => {
      const loaded = modulesLoadedBy(argv);
      expect(loaded.some((u) => u.endsWith('/cli/command-table.ts'))).toBe(true);
      expect(heavy(loaded)).toEqual([]);
    },
  );

  it('a command loads its own module only', () => {
    const loaded = modulesLoadedBy(['completion', 'bash']);
    expect(loaded.filter((u) => u.includes('/cli/commands/')).map((u) => u.replace(/.*\/cli\//, ''))).toEqual(
      ['commands/completion.ts'],
    );
  });

  it('whoami with an API key loads the SDK client, but neither the credential store nor the OAuth client', () => {
    const loaded = modulesLoadedBy(['whoami', '--endpoint', 'http://127.0.0.1:9']);
    expect(loaded.some((u) => u.endsWith('/cli/sdk/client.ts'))).toBe(true);
    expect(
      loaded.filter((u) =>
        /credential-store|authorization-server|node_modules\/(zod|openid-client)\//.test(u),
      ),
    ).toEqual([]);
  });
});
