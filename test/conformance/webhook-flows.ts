// The ACP order webhook flows of the conformance command: for every ACP version, an agent platform
// registered for that version buys a plan and then changes it, all over real HTTP; every order event
// its receiver gets must carry a valid Merchant-Signature and validate against that version's
// official `WebhookEvent` (openapi.agentic_checkout_webhook.yaml).
import { randomBytes } from 'node:crypto';
import { ACP_VERSIONS, type AcpVersion } from '../../api/acp/versions.ts';
import { eventually } from '../support/eventually.ts';
import { HttpBrowser } from '../support/http-browser.ts';
import { type ReceivedEvent, WebhookReceiver } from '../support/webhook-receiver.ts';
import type { CheckResult } from './flows.ts';
import type { loadConformance } from './schema-validators.ts';

type Schemas = ReturnType<typeof loadConformance>;

export class WebhookConformance {
  private readonly baseUrl: string;
  private readonly bootstrapToken: string;
  private readonly schemas: Schemas;
  private readonly secret = randomBytes(24).toString('hex');

  constructor(baseUrl: string, bootstrapToken: string, schemas: Schemas) {
    this.baseUrl = baseUrl;
    this.bootstrapToken = bootstrapToken;
    this.schemas = schemas;
  }

  private async post(path: string, body: unknown, bearer: string): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: JSON.stringify(body),
    });
  }

  /** The platform's API key. */
  private async register(version: AcpVersion, receiver: WebhookReceiver): Promise<string> {
    const res = await this.post(
      '/api/v1/agent-platforms',
      {
        id: `conformance-${version}`,
        name: `Conformance ${version}`,
        apiVersion: version,
        webhookUrl: receiver.url,
        webhookSecret: this.secret,
      },
      this.bootstrapToken,
    );
    if (res.status !== 201) throw new Error(`registering a platform answered ${res.status}`);
    return ((await res.json()) as { apiKey: string }).apiKey;
  }

  /** An agent's checkout, finished by the owner at the test processor (or confirmed, for a change). */
  private async purchase(browser: HttpBrowser, apiKey: string, item: string): Promise<string> {
    const created = await this.post('/checkout_sessions', { items: [{ id: item }] }, apiKey);
    if (created.status !== 201) throw new Error(`create answered ${created.status}`);
    const id = ((await created.json()) as { id: string }).id;
    const completed = await this.post(`/checkout_sessions/${id}/complete`, {}, apiKey);
    if (completed.status !== 200) throw new Error(`complete answered ${completed.status}`);
    await browser.fetch(`/checkout/${id}`);
    const paying = await browser.submit(`/checkout/${id}/pay`, {});
    if (paying.url.includes('/test-processor'))
      await browser.submit(paying.url, { name: 'Ada Lovelace', country: 'GB', postal_code: 'N1 9GU' });
    return id;
  }

  private check(name: string, event: ReceivedEvent | undefined, version: AcpVersion): CheckResult {
    if (!event) return { name, problems: ['no event arrived'] };
    const problems = this.schemas.acp[version].webhookEvent(event.body);
    if (!event.verified) problems.push('Merchant-Signature did not verify');
    return { name, problems };
  }

  async version(version: AcpVersion): Promise<CheckResult[]> {
    const receiver = await new WebhookReceiver(this.secret).start();
    try {
      const apiKey = await this.register(version, receiver);
      const browser = new HttpBrowser(this.baseUrl);
      await browser.signUp({
        name: 'Conformance owner',
        email: `webhooks-${version}-${randomBytes(4).toString('hex')}@example.com`,
        password: 'correct horse battery staple',
      });
      const first = await this.purchase(browser, apiKey, 'plan_starter_monthly');
      const second = await this.purchase(browser, apiKey, 'plan_pro_annual');
      const find = (session: string, type: string) =>
        receiver.accepted().find((e) => e.body.data?.checkout_session_id === session && e.body.type === type);
      await eventually(async () => find(first, 'order_update') && find(second, 'order_create'), 15_000).catch(
        () => undefined,
      );
      return [
        this.check(`ACP ${version} webhook order_create`, find(first, 'order_create'), version),
        this.check(
          `ACP ${version} webhook order_update (plan changed)`,
          find(first, 'order_update'),
          version,
        ),
        this.check(`ACP ${version} webhook order_create (the change)`, find(second, 'order_create'), version),
      ];
    } catch (err) {
      return [{ name: `ACP ${version} webhooks`, problems: [`flow failed: ${(err as Error).message}`] }];
    } finally {
      await receiver.close();
    }
  }

  async all(): Promise<CheckResult[]> {
    const results: CheckResult[] = [];
    for (const version of ACP_VERSIONS) results.push(...(await this.version(version)));
    return results;
  }
}
