// `colony integrations secret set <id> --office <office> --from-env-file <file>`: stores credentials
// from a KEY=value file. Values go to the server only: nothing printed names more than the keys.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { clientFor } from '../../client-from-env.ts';
import { parseEnvFile } from '../../env-file.ts';
import { printRecord } from '../../output.ts';
import type { Handler } from '../../spec.ts';
import { CliFailure, EXIT } from '../../usage-error.ts';

function readEnvFile(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliFailure(
      `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      EXIT.usage,
    );
  }
  const { data, problems } = parseEnvFile(text);
  if (problems.length) throw new CliFailure(`${file}: ${problems.join('; ')}`, EXIT.usage);
  return data;
}

export const run: Handler = async (ctx) => {
  const id = ctx.args[0] as string;
  const office = String(ctx.flags.office);
  const data = readEnvFile(resolve(ctx.io.cwd, String(ctx.flags['from-env-file'])));
  const secretName = typeof ctx.flags['secret-name'] === 'string' ? ctx.flags['secret-name'] : undefined;
  const client = await clientFor(ctx);
  const saved = await client.saveSecret(office, id, data, secretName);
  printRecord(ctx, saved, () => [
    `Saved ${saved.savedKeys.join(', ')} for ${id} in ${office} (${saved.registration.Status})`,
  ]);
  return 0;
};
