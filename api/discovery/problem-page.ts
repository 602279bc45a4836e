// Pure: the page a problem `type` URI resolves to.

import { escapeHtml, page } from '../shared/html.ts';
import { type ProblemCode, problemCatalogue } from '../shared/problem.ts';

export function renderProblemPage(code: ProblemCode): string {
  const p = problemCatalogue[code];
  return page(
    `${p.title} (${code})`,
    `<h1>${escapeHtml(p.title)}</h1>
<p>HTTP status <strong>${p.status}</strong>, code <code>${escapeHtml(code)}</code>.</p>
<p>${escapeHtml(p.description)}</p>
<p class="muted">Colony answers errors on <code>/api/v1</code> as RFC 9457 <code>application/problem+json</code>.</p>`,
  );
}
