// Pure: the two pages a person sees at the end of a Connect flow, connected or not.
import { escapeHtml, page } from '../shared/html.ts';

export function renderConnectedPage(v: {
  integration: string;
  officeId: string;
  instance?: string | undefined;
}) {
  const what = v.instance ? `${v.integration} (${v.instance})` : v.integration;
  return page(
    `${v.integration} connected`,
    `<h1>${escapeHtml(what)} is connected</h1>
<p>Office <code>${escapeHtml(v.officeId)}</code> can now use ${escapeHtml(v.integration)}. Enable it for the
agents that need it; their access is renewed automatically. You can close this tab.</p>`,
  );
}

export function renderConnectFailedPage(v: {
  status: number;
  message: string;
  retryUrl?: string | undefined;
}) {
  const retry = v.retryUrl ? `<p><a href="${escapeHtml(v.retryUrl)}">Start again</a></p>` : '';
  return page(
    'Could not connect',
    `<h1>Could not connect</h1>
<p role="alert">${escapeHtml(v.message)}</p>${retry}`,
  );
}
