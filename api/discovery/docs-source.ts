// Reads the Markdown docs served to agents, with `{base_url}` replaced by this server's address.
import { readdirSync, readFileSync } from 'node:fs';

const docsDir = new URL('../../docs/', import.meta.url);

/** Docs served at /docs/<name>.md; decisions.md is for contributors and stays in the repository. */
export const servedDocs = ['api', 'errors', 'auth', 'configuration', 'commerce', 'backups'] as const;

export function readDoc(name: string, baseUrl: string): string {
  return readFileSync(new URL(`${name}.md`, docsDir), 'utf8').replaceAll('{base_url}', baseUrl);
}

export function availableDocs(): string[] {
  const present = new Set(readdirSync(docsDir).map((f) => f.replace(/\.md$/, '')));
  return servedDocs.filter((d) => present.has(d));
}

/** The first Markdown heading, used as the link text in llms.txt. */
export function docTitle(markdown: string, fallback: string): string {
  return /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? fallback;
}
