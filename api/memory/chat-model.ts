// A chat model behind an OpenAI-compatible API (POST {url}/chat/completions), for cortex_ask.
import { type CircuitBreaker, CircuitOpenError, circuitBreaker } from '../shared/circuit-breaker.ts';

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export interface ChatModel {
  readonly model: string;
  /** The reply's text; rejects with a ChatModelError on any answer that is not one whole reply. */
  complete(messages: readonly ChatMessage[]): Promise<string>;
}

/** Why the model gave no usable reply; `reason` is safe to show a user (no URL, key or body). */
export class ChatModelError extends Error {
  override readonly name = 'ChatModelError';
  readonly reason: 'timeout' | 'unreachable' | 'status' | 'malformed' | 'truncated' | 'resting';
  constructor(reason: ChatModelError['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

interface Completion {
  choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
}

/** The text of the first choice, when the body is a finished chat completion. */
export function completionText(body: unknown): string {
  const choice = (body as Completion | null)?.choices?.[0];
  const content = choice?.message?.content;
  if (typeof content !== 'string' || content.trim() === '') {
    throw new ChatModelError('malformed', 'chat completion without a text reply');
  }
  // A reply cut at the token limit is half an answer: never shown as the answer.
  if (choice?.finish_reason === 'length')
    throw new ChatModelError('truncated', 'chat completion was cut short');
  return content.trim();
}

export function openAiChatModel(opts: {
  url: string;
  model: string;
  apiKey: string | undefined;
  timeoutMs: number;
  /** Counts calls that got no reply (timeout, unreachable, error status, not JSON), not cut-short ones. */
  breaker?: CircuitBreaker;
}): ChatModel {
  const breaker = opts.breaker ?? circuitBreaker();
  return {
    model: opts.model,
    async complete(messages) {
      let body: unknown;
      try {
        body = await breaker.run(() => call(messages));
      } catch (err) {
        throw asChatModelError(err);
      }
      return completionText(body);
    },
  };

  async function call(messages: readonly ChatMessage[]): Promise<unknown> {
    const res = await fetch(`${opts.url}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: opts.model, messages }),
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    if (!res.ok) {
      await res.body?.cancel();
      throw new ChatModelError('status', `chat completions API answered ${res.status}`);
    }
    return res.json();
  }
}

function asChatModelError(err: unknown): ChatModelError {
  if (err instanceof ChatModelError) return err;
  if (err instanceof CircuitOpenError) {
    return new ChatModelError('resting', 'chat completions API failed repeatedly; skipped for its cool-down');
  }
  const name = (err as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new ChatModelError('timeout', 'chat completions API did not answer in time');
  }
  if (err instanceof SyntaxError)
    return new ChatModelError('malformed', 'chat completions API answered non-JSON');
  // fetch's TypeError names neither headers nor body; its cause says why the connection failed.
  const cause = ((err as Error).cause as Error | undefined)?.message;
  return new ChatModelError('unreachable', `chat completions API unreachable${cause ? ` (${cause})` : ''}`);
}
