// Pure: splits our Markdown docs into sections and ranks them against a query (search_docs).
import { queryTerms } from '../memory/query-terms.ts';

export interface DocSection {
  doc: string;
  heading: string;
  /** The section's anchor-free address: the served Markdown document. */
  url: string;
  text: string;
}

export interface DocHit {
  doc: string;
  heading: string;
  url: string;
  excerpt: string;
  score: number;
}

/** Sections start at every `#`/`##`/`###` heading; text before the first heading goes with the title. */
export function docSections(doc: string, url: string, markdown: string): DocSection[] {
  const sections: DocSection[] = [];
  let heading = doc;
  let lines: string[] = [];
  const flush = () => {
    const text = lines.join('\n').trim();
    if (text) sections.push({ doc, heading, url, text });
    lines = [];
  };
  for (const line of markdown.split('\n')) {
    const m = /^#{1,3}\s+(.+)$/.exec(line);
    if (m?.[1]) {
      flush();
      heading = m[1].trim();
    } else lines.push(line);
  }
  flush();
  return sections;
}

function count(haystack: string, term: string): number {
  let n = 0;
  for (let i = haystack.indexOf(term); i !== -1; i = haystack.indexOf(term, i + term.length)) n++;
  return n;
}

/** Term frequency, damped, with heading matches weighted three times; best first. */
export function searchSections(sections: readonly DocSection[], query: string, limit: number): DocHit[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  return sections
    .map((s) => {
      const heading = s.heading.toLowerCase();
      const text = s.text.toLowerCase();
      const score = terms.reduce(
        (sum, t) => sum + 3 * Math.min(count(heading, t), 1) + Math.log1p(count(text, t)),
        0,
      );
      return { s, score, matched: terms.filter((t) => heading.includes(t) || text.includes(t)).length };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.matched - a.matched || b.score - a.score)
    .slice(0, limit)
    .map(({ s, score }) => ({
      doc: s.doc,
      heading: s.heading,
      url: s.url,
      excerpt: excerpt(s.text, terms),
      score: Math.round(score * 1000) / 1000,
    }));
}

/** About 300 characters around the first matching term. */
function excerpt(text: string, terms: readonly string[]): string {
  const lower = text.toLowerCase();
  const at = Math.min(...terms.map((t) => lower.indexOf(t)).filter((i) => i >= 0), text.length);
  const start = Math.max(0, at - 80);
  const slice = text
    .slice(start, start + 300)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '…' : ''}${slice}${start + 300 < text.length ? '…' : ''}`;
}
