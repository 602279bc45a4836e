#!/usr/bin/env node
// The `colony` CLI entry point (package bin). Plain JavaScript on purpose: Node strips the types of a
// .ts entry before it can run any code, which costs more than the whole of `colony --help`. From here
// the compile cache is on (NODE_COMPILE_CACHE, else the temp directory), so every module imported
// after it is stripped and compiled once, not at each start (docs/decisions.md).
import { enableCompileCache } from 'node:module';

enableCompileCache();
const { main } = await import('./main.ts');
await main(process.argv.slice(2));
