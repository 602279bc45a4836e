// One connected SDK server answering many exchanges at once: each gets its own answer and its own
// AuthInfo, whatever id its client chose and in whatever order the calls finish.
import { type AuthInfo, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MultiplexedTransport } from '../../../api/mcp/multiplexed-transport.ts';

const auth = (who: string): AuthInfo => ({ token: `t-${who}`, clientId: who, scopes: [], extra: { who } });

async function connected() {
  const server = new McpServer({ name: 'test', version: '1' });
  server.registerTool(
    'whoami',
    {
      description: 'Answers with the caller, after a delay the caller picks.',
      inputSchema: z.object({ ms: z.number() }),
    },
    async ({ ms }, ctx) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      const who = String(ctx.http?.authInfo?.extra?.who ?? 'nobody');
      return { content: [{ type: 'text', text: who }], structuredContent: { who, ms } };
    },
  );
  const transport = new MultiplexedTransport();
  await server.connect(transport);
  return { server, transport };
}

const call = (id: number | string, ms: number) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'tools/call',
  params: { name: 'whoami', arguments: { ms } },
});

describe('MultiplexedTransport', () => {
  it('routes every answer to its own exchange when clients reuse one id and answers finish out of order', async () => {
    const { server, transport } = await connected();
    const callers = Array.from({ length: 60 }, (_, i) => ({ who: i % 2 ? 'ada' : 'bob', ms: (i * 7) % 13 }));
    const answers = await Promise.all(callers.map((c) => transport.exchange(call(1, c.ms), auth(c.who))));
    answers.forEach((answer, i) => {
      expect(answer.id).toBe(1);
      expect(answer).toMatchObject({ result: { structuredContent: callers[i] } });
    });
    expect(transport.inFlight).toBe(0);
    await server.close();
  });

  it('gives a call without AuthInfo no caller, even beside calls that have one', async () => {
    const { server, transport } = await connected();
    const [anonymous, ada] = await Promise.all([
      transport.exchange(call('a', 5)),
      transport.exchange(call('a', 0), auth('ada')),
    ]);
    expect(anonymous).toMatchObject({ id: 'a', result: { structuredContent: { who: 'nobody' } } });
    expect(ada).toMatchObject({ id: 'a', result: { structuredContent: { who: 'ada' } } });
    await server.close();
  });

  it("passes the SDK's own errors back under the client's id", async () => {
    const { server, transport } = await connected();
    const unknown = await transport.exchange({ ...call(7, 0), params: { name: 'nope', arguments: {} } });
    expect(unknown.id).toBe(7);
    expect(JSON.stringify(unknown)).toMatch(/nope/);
    await server.close();
  });

  it('refuses new exchanges and fails pending ones once closed', async () => {
    const { server, transport } = await connected();
    const pending = transport.exchange(call(1, 50), auth('ada'));
    await server.close();
    await expect(pending).rejects.toThrow(/closed/);
    await expect(transport.exchange(call(2, 0))).rejects.toThrow(/not connected/);
  });
});
