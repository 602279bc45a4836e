// Which /mcp requests the shared server answers; everything else keeps the SDK's per-request entry.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { sharedServerRequest, sseEvent } from '../../../api/mcp/shared-server-lane.ts';

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

describe('sseEvent', () => {
  it('frames the answer as one SSE message event, as the SDK transport does', () => {
    expect(sseEvent({ jsonrpc: '2.0', id: 1, result: { a: 'x\ny' } })).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"a":"x\\ny"}}\n\n',
    );
  });
});
