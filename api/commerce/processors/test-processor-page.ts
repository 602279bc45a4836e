// Pure: the built-in test processor's hosted page: a billing address form, clearly marked as test mode.
import { escapeHtml, page } from '../../shared/html.ts';
import { TEST_TAX_RATES } from './test-processor.ts';

export function renderTestProcessorPage(v: {
  sessionId: string;
  reference: string;
  csrf: string;
  error?: string;
}): string {
  const countries = Object.keys(TEST_TAX_RATES)
    .map((c) => `<option value="${c}">${c}</option>`)
    .join('');
  const action = `/checkout/${encodeURIComponent(v.sessionId)}/test-processor?reference=${encodeURIComponent(v.reference)}`;
  return page(
    'Test payment',
    `<h1>Test payment processor</h1>
<p><strong>Test mode:</strong> this page stands in for a real payment processor. No card is asked for and nothing is ever charged.</p>
${v.error ? `<p class="error" role="alert">${escapeHtml(v.error)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="_csrf" value="${escapeHtml(v.csrf)}">
<label for="billing-name">Name on the billing address</label> <input id="billing-name" name="name" required maxlength="100">
<label for="billing-country">Country</label> <select id="billing-country" name="country">${countries}</select>
<label for="billing-postal">Postal code</label> <input id="billing-postal" name="postal_code" required maxlength="20">
<p><button id="start-trial" type="submit">Start the free trial</button></p>
</form>
<p class="muted">Tax is assessed from the billing country using a fixed test table.</p>`,
  );
}
