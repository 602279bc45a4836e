// `colony completion bash|zsh|fish`: the completion script, generated from the command table.
import { completionScript, shells } from '../completion-script.ts';
import { printJson } from '../output.ts';
import type { Handler } from '../spec.ts';
import { UsageError } from '../usage-error.ts';

export const run: Handler = async (ctx) => {
  const shell = ctx.args[0] as string;
  if (!(shells as readonly string[]).includes(shell))
    throw new UsageError(`unknown shell "${shell}": use ${shells.join(', ')}`, ctx.spec.path);
  const script = completionScript(shell as (typeof shells)[number], ctx.table);
  if (ctx.json) printJson(ctx.io, { shell, script });
  else ctx.io.out(script);
  return 0;
};
