#!/usr/bin/env node
// The `colony` CLI entry point (package bin).
import { runCli } from './run.ts';

const code = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
