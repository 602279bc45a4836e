// Writes docs/cli.md from the CLI's command table; `--check` fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { commandTable } from '../cli/command-table.ts';
import { renderReference } from '../cli/reference-doc.ts';

const file = new URL('../docs/cli.md', import.meta.url);
const text = renderReference(commandTable);
const current = (() => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
})();
if (current === text) process.exit(0);
if (process.argv.includes('--check')) {
  console.error(`stale: ${file.pathname} (run node scripts/generate-cli-reference.ts)`);
  process.exit(1);
}
writeFileSync(file, text);
console.log(`wrote ${file.pathname}`);
