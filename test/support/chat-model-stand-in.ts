// A STAND-IN for an OpenAI-compatible chat model (no chat model can be installed here): it serves
// POST /v1/chat/completions on loopback, records each request, and replies as the test scripts it.
// Its default "model" quotes the numbered block sharing the most words with the question.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  headers: IncomingHttpHeaders;
  body: { model?: string; messages?: { role: string; content: string }[] };
}

/** What to send back: a reply text, or a raw status and body, or a delay before answering. */
export type Script = (
  req: ChatRequest,
) =>
  | { text: string; finishReason?: string }
  | { status: number; body: string }
  | { delayMs: number; text: string };

export interface ChatStandIn {
  /** Base URL, as COLONY_ANSWER_MODEL_URL takes it (ends in /v1). */
  url: string;
  requests: ChatRequest[];
  script: Script;
  close(): Promise<void>;
}

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z]{4,}/g) ?? []);

/** Quotes the block that shares the most words with the question, citing it, as a model would. */
export const quoteBestBlock: Script = (req) => {
  const prompt = req.body.messages?.find((m) => m.role === 'user')?.content ?? '';
  const question = words(/Question: (.*)$/s.exec(prompt)?.[1] ?? '');
  const blocks = [...prompt.matchAll(/^\[(\d+)\][^\n]*\n(.+)$/gm)].map((m) => ({
    n: m[1],
    text: m[2] ?? '',
  }));
  const best = blocks
    .map((b) => ({ ...b, shared: [...words(b.text)].filter((w) => question.has(w)).length }))
    .sort((a, b) => b.shared - a.shared)[0];
  return { text: best ? `From your notes: ${best.text} [${best.n}]` : 'Your notes do not say.' };
};

function completion(model: string | undefined, text: string, finishReason = 'stop'): string {
  return JSON.stringify({
    id: 'chatcmpl-stand-in',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finishReason }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  });
}

async function answer(res: ServerResponse, request: ChatRequest, out: ReturnType<Script>): Promise<void> {
  if ('status' in out) {
    res.writeHead(out.status, { 'content-type': 'application/json' }).end(out.body);
    return;
  }
  if ('delayMs' in out) await new Promise((r) => setTimeout(r, out.delayMs));
  if (res.destroyed) return;
  const finish = 'finishReason' in out ? out.finishReason : undefined;
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(completion(request.body.model, out.text, finish));
}

export async function startChatStandIn(script: Script = quoteBestBlock): Promise<ChatStandIn> {
  const state = { script, requests: [] as ChatRequest[] };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const request: ChatRequest = { headers: req.headers, body: JSON.parse(raw) };
      state.requests.push(request);
      void answer(res, request, state.script(request));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: state.requests,
    get script() {
      return state.script;
    },
    set script(s: Script) {
      state.script = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
