// Pure: the HTML page a browser gets for an error outside the JSON APIs (an unknown page, a method a page
// does not serve), naming the same problem type an API client would get.
import { escapeHtml, page } from './html.ts';
import { type ProblemCode, problemCatalogue, problemTypeUri } from './problem.ts';

export function renderErrorPage(
  baseUrl: string,
  code: ProblemCode,
  detail: string,
  requestId: string,
): string {
  const p = problemCatalogue[code];
  return page(
    p.title,
    `<h1>${escapeHtml(p.title)}</h1>
<p>${escapeHtml(detail)}</p>
<p class="muted">HTTP ${p.status}, <a href="${escapeHtml(problemTypeUri(baseUrl, code))}">${escapeHtml(code)}</a>,
request id <code>${escapeHtml(requestId)}</code>.</p>`,
  );
}
