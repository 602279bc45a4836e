// One long-lived SDK transport that carries many concurrent HTTP exchanges to one connected server.
import type {
  AuthInfo,
  JSONRPCMessage,
  JSONRPCRequest,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';

type RequestId = JSONRPCRequest['id'];

/** The server's answer to one exchange, under the id the client sent. */
export type ExchangeAnswer = JSONRPCMessage & { id: RequestId };

interface Pending {
  clientId: RequestId;
  resolve: (answer: ExchangeAnswer) => void;
  reject: (error: Error) => void;
}

const isAnswer = (message: JSONRPCMessage): message is ExchangeAnswer =>
  'id' in message && ('result' in message || 'error' in message);

/**
 * Stateless serving without a server per request: the server stays connected to this transport, and
 * each exchange enters it as its own JSON-RPC request with its own AuthInfo (the SDK hands that to
 * the tool as ctx.http.authInfo). Clients choose their ids and every client starts at 1, so each
 * exchange is renamed to an id of the transport's own while it is in flight and its answer is
 * routed back by that id alone: two exchanges can never receive each other's answer.
 *
 * Messages the server sends that are not an answer (progress, logging, requests to the client) are
 * dropped, as the SDK's own JSON response mode drops them: no Colony tool sends any.
 */
export class MultiplexedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private closed = false;

  async start(): Promise<void> {}

  /** Delivers one request to the connected server and resolves with its answer. */
  exchange(request: JSONRPCRequest, authInfo?: AuthInfo): Promise<ExchangeAnswer> {
    const deliver = this.onmessage;
    if (this.closed || !deliver) return Promise.reject(new Error('The MCP server is not connected.'));
    this.nextId = this.nextId >= Number.MAX_SAFE_INTEGER ? 1 : this.nextId + 1;
    const id = this.nextId;
    return new Promise<ExchangeAnswer>((resolve, reject) => {
      this.pending.set(id, { clientId: request.id, resolve, reject });
      deliver({ ...request, id }, authInfo ? { authInfo } : undefined);
    });
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (!isAnswer(message) || typeof message.id !== 'number') return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    waiting.resolve({ ...message, id: waiting.clientId });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new Error('The MCP server closed.');
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    this.onclose?.();
  }

  /** Exchanges still waiting for an answer (for tests). */
  get inFlight(): number {
    return this.pending.size;
  }
}
