// Which /mcp requests the shared server answers; everything else keeps the SDK's per-request entry.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { plainLegacyRequest, sharedServerRequest, sseEvent } from '../../../api/mcp/shared-server-lane.ts';

const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_pricing', arguments: {} } };
const modernHeaders = {
  ...headers,
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'get_pricing',
};
const envelope = {
  [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
  [CLIENT_CAPABILITIES_META_KEY]: {},
  [CLIENT_INFO_META_KEY]: { name: 'test', version: '1' },
};

describe('sharedServerRequest', () => {
  it.each([
    ['a 2025-era tools/call', headers, call],
    ['a tools/list', headers, { jsonrpc: '2.0', id: 'x', method: 'tools/list' }],
    ['a call naming no protocol version', { accept: headers.accept }, call],
  ])('takes %s', (_name, h, body) => {
    expect(sharedServerRequest('POST', h, body)).toBe(body);
  });

  it.each([
    ['initialize, which a connection remembers', headers, { ...call, method: 'initialize', params: {} }],
    ['logging/setLevel, which a connection remembers', headers, { ...call, method: 'logging/setLevel' }],
    ['a notification', headers, { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a batch', headers, [call]],
    ['a body that is not JSON-RPC', headers, { id: 1, method: 'tools/call' }],
    ['a call whose id is neither a string nor a number', headers, { ...call, id: { n: 1 } }],
    ['a call that also carries a result', headers, { ...call, result: {} }],
    ['a client that does not accept SSE', { ...headers, accept: 'application/json' }, call],
    ['an unknown protocol version', { ...headers, 'mcp-protocol-version': '1999-01-01' }, call],
    [
      'a 2026-era version header without the envelope',
      { ...headers, 'mcp-protocol-version': '2026-07-28' },
      call,
    ],
    [
      'an envelope claim without a version header',
      { accept: headers.accept },
      { ...call, params: { ...call.params, _meta: envelope } },
    ],
    [
      'a 2026-era request with its envelope',
      modernHeaders,
      { ...call, params: { ...call.params, _meta: envelope } },
    ],
  ])('leaves %s to the per-request entry', (_name, h, body) => {
    expect(sharedServerRequest('POST', h, body)).toBeUndefined();
  });

  it('leaves GET and DELETE to the per-request entry', () => {
    expect(sharedServerRequest('GET', headers, undefined)).toBeUndefined();
    expect(sharedServerRequest('DELETE', headers, call)).toBeUndefined();
  });
});

describe('plainLegacyRequest', () => {
  // Every combination of these: the shortcut may say yes only where the SDK's classification says
  // legacy with no envelope claim, whatever it says elsewhere.
  const ids = [1, 0, -7, 'x', '', 1.5, 2 ** 53, null, true, undefined];
  const paramsVariants = [
    undefined,
    {},
    call.params,
    { name: 'get_pricing', _meta: {} },
    { name: 'get_pricing', _meta: { progressToken: 1 } },
    { name: 'get_pricing', _meta: envelope },
    [],
    null,
    'params',
  ];
  const extras = [{}, { result: {} }, { error: { code: 1, message: 'x' } }, { other: 1 }, { jsonrpc: '1.0' }];
  const headerVariants = [
    {},
    ...SUPPORTED_PROTOCOL_VERSIONS.map((v) => ({ 'mcp-protocol-version': v })),
    { 'mcp-protocol-version': ' 2025-06-18' },
    { 'mcp-protocol-version': '1999-01-01' },
    { 'mcp-protocol-version': ['2025-06-18', '2025-06-18'] },
    { 'mcp-protocol-version': '2025-06-18', 'mcp-method': 'tools/call' },
    { 'mcp-name': 'get_pricing' },
  ];
  const cases = ids.flatMap((id) =>
    paramsVariants.flatMap((params) =>
      extras.flatMap((extra) =>
        headerVariants.map((h) => ({
          h,
          body: {
            jsonrpc: '2.0',
            method: 'tools/call',
            ...(id === undefined ? {} : { id }),
            ...(params === undefined ? {} : { params }),
            ...extra,
          } as Record<string, unknown>,
        })),
      ),
    ),
  );
  const sdkSaysNoClaim = (h: Record<string, unknown>, body: unknown) => {
    const one = (v: unknown) => (Array.isArray(v) ? v.join(', ') : (v as string | undefined));
    const version = one(h['mcp-protocol-version']);
    const method = one(h['mcp-method']);
    const name = one(h['mcp-name']);
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      body,
      ...(version !== undefined ? { protocolVersionHeader: version } : {}),
      ...(method !== undefined ? { mcpMethodHeader: method } : {}),
      ...(name !== undefined ? { mcpNameHeader: name } : {}),
    });
    return route.kind === 'legacy' && route.reason === 'no-claim';
  };

  it('says yes only where the SDK classifies the request as legacy with no envelope claim', () => {
    const yes = cases.filter(({ h, body }) => plainLegacyRequest(h, body));
    expect(yes.filter(({ h, body }) => !sdkSaysNoClaim(h, body))).toEqual([]);
    // And a real shortcut: it takes all of those without _meta, routing headers or an unserved version.
    const usual = cases.filter(({ h, body }) => {
      const { params } = body as { params?: { _meta?: unknown } };
      const version = h['mcp-protocol-version'];
      return (
        sdkSaysNoClaim(h, body) &&
        params?._meta === undefined &&
        !('mcp-method' in h || 'mcp-name' in h) &&
        (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version as string))
      );
    });
    expect(usual.length).toBeGreaterThan(50);
    expect(usual.filter(({ h, body }) => !plainLegacyRequest(h, body))).toEqual([]);
  });

  it('takes the usual 2025-era tool call and tools/list', () => {
    expect(plainLegacyRequest(headers, call)).toBe(true);
    expect(
      plainLegacyRequest({ accept: headers.accept }, { jsonrpc: '2.0', id: 'a', method: 'tools/list' }),
    ).toBe(true);
  });
});

describe('sseEvent', () => {
  it('frames the answer as one SSE message event, as the SDK transport does', () => {
    expect(sseEvent({ jsonrpc: '2.0', id: 1, result: { a: 'x\ny' } })).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"a":"x\\ny"}}\n\n',
    );
  });
});
