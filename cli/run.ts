// `colony …`: parses the command line against the command table, prints help or imports and runs the
// one command named, and turns any failure into stderr lines and an exit code.
import { commandTable } from './command-table.ts';
import { commandHelp, groupHelp } from './help-text.ts';
import { parseCommandLine } from './parse-command-line.ts';
import { describeFailure, failureLines } from './report-failure.ts';
import type { CommandIo } from './spec.ts';

export type { CommandIo } from './spec.ts';

export async function runCli(argv: readonly string[], io: CommandIo): Promise<number> {
  try {
    const line = parseCommandLine(argv);
    if (line.kind === 'group') {
      for (const text of groupHelp(line.path)) io.out(text);
      return 0;
    }
    if (line.help) {
      for (const text of commandHelp(line.spec)) io.out(text);
      return 0;
    }
    const handler = await line.spec.load();
    const endpoint = typeof line.flags.endpoint === 'string' ? line.flags.endpoint : undefined;
    const code = await handler({
      spec: line.spec,
      args: line.args,
      flags: line.flags,
      json: line.flags.json === true,
      endpoint,
      io,
      table: commandTable,
    });
    return code ?? 0;
  } catch (err) {
    // Every error the CLI and its SDK throw is written for people and never carries a token.
    const failure = describeFailure(err);
    for (const text of failureLines(failure)) io.err(text);
    return failure.code;
  }
}
