// Pure: the history half of the account's plan page: the processor's receipts and invoices with their
// links, and Colony's orders, each order id linking to its permalink. Lists, not tables, so a phone
// shows every column without scrolling sideways.
import { escapeHtml } from '../../shared/html.ts';
import { dollars, isoDate } from '../checkout-terms.ts';
import type { OrderRecord } from '../orders-repo.ts';
import type { InvoiceSummary } from '../processors/subscription-description.ts';
import { orderPath, planName } from './account-plan.ts';

/** An amount in the invoice's currency; dollars as Colony prices in them. */
export function money(amount: number, currency: string): string {
  if (currency.toLowerCase() === 'usd') return dollars(amount);
  return `${(amount / 100).toFixed(2)} ${escapeHtml(currency.toUpperCase())}`;
}

const link = (href: string | null, text: string, cls: string) =>
  href ? ` <a class="${cls}" href="${escapeHtml(href)}" rel="noopener">${text}</a>` : '';

function invoiceItem(i: InvoiceSummary): string {
  const name = i.number ? escapeHtml(i.number) : escapeHtml(i.description);
  return `<li id="invoice-${escapeHtml(i.id)}"><span class="when">${isoDate(i.createdAt)}</span>
<span class="what">${name}</span> <span class="amount">${money(i.total, i.currency)}</span>
<span class="badge">${escapeHtml(i.status)}</span>${link(i.hostedUrl, 'View', 'invoice-view')}${link(i.pdfUrl, 'PDF', 'invoice-pdf')}</li>`;
}

export function invoicesSection(invoices: readonly InvoiceSummary[] | undefined, testMode: boolean): string {
  const intro = testMode
    ? '<p class="muted">Test mode: these are the test processor\'s receipts; nothing was charged.</p>'
    : '';
  if (invoices === undefined)
    return `<h2>Receipts and invoices</h2>\n<p class="muted" id="no-invoices">Not available while the payment processor cannot be reached.</p>`;
  if (invoices.length === 0)
    return `<h2>Receipts and invoices</h2>\n${intro}<p class="muted" id="no-invoices">No receipts or invoices yet.</p>`;
  return `<h2>Receipts and invoices</h2>\n${intro}<ul class="rows" id="invoices">
${invoices.map(invoiceItem).join('\n')}
</ul>`;
}

function orderItem(o: OrderRecord, focus: string | undefined): string {
  const what = o.from ? `Changed from ${planName(o.from)} to ${planName(o)}` : `Bought ${planName(o)}`;
  const current = o.id === focus ? ' class="focus" aria-current="true"' : '';
  return `<li id="order-${escapeHtml(o.id)}"${current}><span class="when">${isoDate(o.createdAt)}</span>
<span class="what">${what}</span> <a href="${orderPath(o.id)}"><code>${escapeHtml(o.id)}</code></a></li>`;
}

export function ordersSection(orders: readonly OrderRecord[], focus: string | undefined): string {
  if (orders.length === 0) return '';
  return `<h2>Orders</h2>\n<ul class="rows" id="portal-orders">
${orders.map((o) => orderItem(o, focus)).join('\n')}
</ul>`;
}
