// The conformance flows: a full checkout for every ACP version and every UCP version, over real HTTP,
// each response checked against the official schema for what it claims to be.
import { ACP_VERSIONS, type AcpVersion } from '../../api/acp/versions.ts';
import type { AgentProfileServer } from './agent-profile-server.ts';
import { ucpAgent } from './agent-profile-server.ts';
import { type loadConformance, UCP_VERSIONS, type UcpVersion, type Validator } from './schema-validators.ts';

export interface CheckResult {
  name: string;
  problems: string[];
}

type Schemas = ReturnType<typeof loadConformance>;

interface Call {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export class ConformanceRun {
  readonly results: CheckResult[] = [];
  private readonly baseUrl: string;
  private readonly schemas: Schemas;

  constructor(baseUrl: string, schemas: Schemas) {
    this.baseUrl = baseUrl;
    this.schemas = schemas;
  }

  private async call(c: Call): Promise<{ status: number; body: unknown; headers: Headers }> {
    const res = await fetch(`${this.baseUrl}${c.path}`, {
      method: c.method,
      headers: { ...(c.body === undefined ? {} : { 'content-type': 'application/json' }), ...c.headers },
      ...(c.body === undefined ? {} : { body: JSON.stringify(c.body) }),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // left as text: the schema check reports it
    }
    return { status: res.status, body, headers: res.headers };
  }

  /** Calls, checks the status and validates the body; returns the body for the next step. */
  private async check(
    name: string,
    c: Call,
    status: number,
    validate: Validator | undefined,
  ): Promise<Record<string, unknown>> {
    const problems: string[] = [];
    let body: unknown;
    try {
      const res = await this.call(c);
      body = res.body;
      if (res.status !== status) problems.push(`HTTP ${res.status}, expected ${status}`);
      if (!validate) problems.push('no schema to validate against');
      else problems.push(...validate(body));
    } catch (err) {
      problems.push(`request failed: ${(err as Error).message}`);
    }
    this.results.push({ name, problems });
    return (body ?? {}) as Record<string, unknown>;
  }

  async acp(version: AcpVersion): Promise<void> {
    const v = this.schemas.acp[version];
    const h = { 'api-version': version };
    const forms: [string, unknown][] = [
      [
        'line_items[].item.id',
        {
          line_items: [{ item: { id: 'plan_pro_monthly' }, quantity: 1 }],
          buyer: { email: 'owner@example.com', first_name: 'Ada', last_name: 'Lovelace' },
        },
      ],
      ['items[].id', { items: [{ id: 'plan_starter_monthly', quantity: 1 }] }],
      ['line_items[].id', { line_items: [{ id: 'plan_team_annual' }], currency: 'usd', capabilities: {} }],
    ];
    let id = '';
    for (const [form, body] of forms) {
      const created = await this.check(
        `ACP ${version} create (${form})`,
        { method: 'POST', path: '/checkout_sessions', body, headers: h },
        201,
        v.session,
      );
      id ||= String(created.id);
    }
    const path = `/checkout_sessions/${id}`;
    await this.check(`ACP ${version} get`, { method: 'GET', path, headers: h }, 200, v.session);
    await this.check(
      `ACP ${version} update`,
      {
        method: 'POST',
        path,
        body: { line_items: [{ item: { id: 'plan_pro_monthly' } }, { item: { id: 'addon_backups' } }] },
        headers: h,
      },
      200,
      v.session,
    );
    await this.check(
      `ACP ${version} update to a cart that cannot be bought`,
      { method: 'POST', path, body: { items: [{ id: 'addon_backups' }] }, headers: h },
      200,
      v.session,
    );
    await this.check(
      `ACP ${version} update back`,
      { method: 'POST', path, body: { items: [{ id: 'plan_pro_monthly' }] }, headers: h },
      200,
      v.session,
    );
    await this.check(
      `ACP ${version} complete`,
      {
        method: 'POST',
        path: `${path}/complete`,
        body: {},
        headers: { ...h, 'idempotency-key': `conf-${version}-${id}` },
      },
      200,
      v.session,
    );
    await this.check(
      `ACP ${version} complete replayed`,
      {
        method: 'POST',
        path: `${path}/complete`,
        body: {},
        headers: { ...h, 'idempotency-key': `conf-${version}-${id}` },
      },
      200,
      v.session,
    );
    await this.check(
      `ACP ${version} cancel`,
      { method: 'POST', path: `${path}/cancel`, headers: h },
      200,
      v.session,
    );
    await this.check(
      `ACP ${version} cancel again (405)`,
      { method: 'POST', path: `${path}/cancel`, headers: h },
      405,
      v.error,
    );
    await this.check(
      `ACP ${version} unknown session (404)`,
      { method: 'GET', path: '/checkout_sessions/cs_unknown', headers: h },
      404,
      v.error,
    );
    await this.check(
      `ACP ${version} unknown item (400)`,
      { method: 'POST', path: '/checkout_sessions', body: { items: [{ id: 'nope' }] }, headers: h },
      400,
      v.error,
    );
  }

  async acpShared(): Promise<void> {
    const latest = this.schemas.acp['2026-04-17'];
    await this.check(
      'ACP unsupported API-Version (400)',
      { method: 'GET', path: '/checkout_sessions/cs_x', headers: { 'api-version': '2024-01-01' } },
      400,
      latest.error,
    );
    await this.check(
      'ACP /.well-known/acp.json',
      { method: 'GET', path: '/.well-known/acp.json' },
      200,
      latest.discovery,
    );
  }

  async ucp(version: UcpVersion, agents: AgentProfileServer): Promise<void> {
    const v = this.schemas.ucp[version];
    const current = this.schemas.ucp['2026-04-08'];
    const h = { 'ucp-agent': ucpAgent(agents, `/agent/${version}`) };
    const profilePath = version === '2026-04-08' ? '/.well-known/ucp' : `/.well-known/ucp/${version}`;
    await this.check(
      `UCP ${version} business profile`,
      { method: 'GET', path: profilePath },
      200,
      v.businessProfile,
    );
    const created = await this.check(
      `UCP ${version} create`,
      {
        method: 'POST',
        path: '/ucp/v1/checkout-sessions',
        body: { line_items: [{ item: { id: 'plan_pro_monthly' }, quantity: 1 }] },
        headers: h,
      },
      201,
      v.checkout,
    );
    const path = `/ucp/v1/checkout-sessions/${String(created.id)}`;
    await this.check(`UCP ${version} get`, { method: 'GET', path, headers: h }, 200, v.checkout);
    await this.check(
      `UCP ${version} update`,
      {
        method: 'PUT',
        path,
        body: {
          line_items: [{ item: { id: 'plan_pro_monthly' } }, { item: { id: 'addon_backups' } }],
          buyer: { email: 'owner@example.com' },
        },
        headers: h,
      },
      200,
      v.checkout,
    );
    await this.check(
      `UCP ${version} complete`,
      { method: 'POST', path: `${path}/complete`, body: {}, headers: h },
      200,
      v.checkout,
    );
    await this.check(
      `UCP ${version} cancel`,
      { method: 'POST', path: `${path}/cancel`, headers: h },
      200,
      v.checkout,
    );
    // Errors are error_response bodies, defined from 2026-04-08 on.
    await this.check(
      `UCP ${version} complete after cancel (409)`,
      { method: 'POST', path: `${path}/complete`, body: {}, headers: h },
      409,
      current.errorResponse,
    );
    await this.check(
      `UCP ${version} unknown session (404)`,
      { method: 'GET', path: '/ucp/v1/checkout-sessions/ucs_unknown', headers: h },
      404,
      current.errorResponse,
    );
  }

  async ucpShared(agents: AgentProfileServer): Promise<void> {
    const current = this.schemas.ucp['2026-04-08'];
    const post = (agent: string) => ({
      method: 'POST',
      path: '/ucp/v1/checkout-sessions',
      body: { line_items: [{ item: { id: 'plan_pro_monthly' } }] },
      headers: { 'ucp-agent': agent },
    });
    await this.check(
      'UCP unsupported version (422)',
      post(ucpAgent(agents, '/agent/unsupported')),
      422,
      current.errorResponse,
    );
    await this.check(
      'UCP malformed profile (422)',
      post(ucpAgent(agents, '/agent/not-a-profile')),
      422,
      current.errorResponse,
    );
    await this.check(
      'UCP unreachable profile (424)',
      post(ucpAgent(agents, '/agent/broken')),
      424,
      current.errorResponse,
    );
    await this.check('UCP invalid UCP-Agent (400)', post('profile=not-a-string'), 400, current.errorResponse);
  }

  async all(agents: AgentProfileServer): Promise<CheckResult[]> {
    for (const version of ACP_VERSIONS) await this.acp(version);
    await this.acpShared();
    for (const version of UCP_VERSIONS) await this.ucp(version, agents);
    await this.ucpShared(agents);
    return this.results;
  }
}
