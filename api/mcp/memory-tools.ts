// The memory (cortex) tools. The HTTP gate has already checked token and scope; each tool checks
// again and acts only on the memory of the token's own account, read from the call's own AuthInfo.
import type { AuthInfo, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { connectableSources, connectLink } from '../connect/connectable.ts';
import { type Principal, principalCoversOffice } from '../shared/identity.ts';
import type { McpOptions } from './mcp-options.ts';
import { memoryToolInputs as inputs } from './memory-tool-schemas.ts';
import { type Outage, signalOutage } from './outage-signal.ts';
import { jsonResult, type ToolResult, toolError } from './tool-result.ts';
import { type MemoryToolName, memoryToolScopes } from './tool-scopes.ts';

const epoch = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));

/** The principal rides through the SDK in AuthInfo.extra; the SDK never derives it from headers. */
export function authInfoOf(principal: Principal, token: string, outage?: Outage): AuthInfo {
  return {
    token,
    clientId: principal.clientId ?? principal.credentialId ?? principal.subject,
    scopes: principal.scopes,
    extra: { principal, ...(outage ? { outage } : {}) },
  };
}

const principalOf = (ctx: ServerContext): Principal | null =>
  (ctx.http?.authInfo?.extra?.principal as Principal | undefined) ?? null;

type Caller = { accountId: string; principal: Principal };

/**
 * Registers the tools once per server. Nothing about the caller is captured here: a server may
 * answer many callers at once, and each call carries its own AuthInfo.
 */
export function registerMemoryTools(
  server: McpServer,
  services: Pick<McpOptions, 'config' | 'identity' | 'registry'>,
): void {
  const memory = services.identity.memory;
  const base = services.config.baseUrl;

  /** Runs `fn` for the call's own account once its credential has the tool's scope. */
  const guarded = <A>(name: MemoryToolName, fn: (caller: Caller, args: A) => Promise<ToolResult>) => {
    return async (args: A, ctx: ServerContext): Promise<ToolResult> => {
      const scope = memoryToolScopes[name];
      const principal = principalOf(ctx);
      if (!principal) return toolError(`${name} needs an OAuth token with the scope ${scope}.`);
      if (!principal.scopes.includes(scope)) return toolError(`${name} needs the scope ${scope}.`);
      if (!principal.accountId) return toolError('Memory belongs to an account; this credential has none.');
      const caller = { accountId: principal.accountId, principal };
      return signalOutage(ctx, () => fn(caller, args));
    };
  };
  const reads = { readOnlyHint: true, openWorldHint: false } as const;
  const writes = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

  server.registerTool(
    'cortex_remember',
    {
      title: 'Remember a fact',
      description: 'Stores one fact or note in your memory. Needs memory:write.',
      inputSchema: inputs.cortex_remember,
      annotations: writes,
    },
    guarded(
      'cortex_remember',
      async ({ accountId }, a: { text: string; source?: string; occurredAt?: string }) =>
        jsonResult(
          await memory.remember(accountId, a.text, { source: a.source, occurredAt: epoch(a.occurredAt) }),
        ),
    ),
  );

  server.registerTool(
    'cortex_ingest',
    {
      title: 'Ingest a document',
      description:
        'Stores a document, split into chunks on paragraph and sentence boundaries. Needs memory:write.',
      inputSchema: inputs.cortex_ingest,
      annotations: writes,
    },
    guarded(
      'cortex_ingest',
      async ({ accountId }, a: { content: string; source: string; occurredAt?: string }) => {
        const stored = await memory.ingest(accountId, a.content, {
          source: a.source,
          occurredAt: epoch(a.occurredAt),
        });
        return jsonResult({ ...stored, chunks: stored.ids.length });
      },
    ),
  );

  server.registerTool(
    'cortex_ingest_conversation',
    {
      title: 'Ingest a conversation',
      description:
        'Stores a conversation, consecutive turns kept together with their speakers. Needs memory:write.',
      inputSchema: inputs.cortex_ingest_conversation,
      annotations: writes,
    },
    guarded(
      'cortex_ingest_conversation',
      async (
        { accountId },
        a: { messages: { role: string; content: string }[]; source?: string; occurredAt?: string },
      ) => {
        const stored = await memory.ingestConversation(accountId, a.messages, {
          source: a.source,
          occurredAt: epoch(a.occurredAt),
        });
        return stored.ids.length === 0
          ? toolError('Every message was empty; nothing was stored.')
          : jsonResult({ ...stored, chunks: stored.ids.length });
      },
    ),
  );

  server.registerTool(
    'cortex_recall',
    {
      title: 'Recall memories',
      description: 'The memories most relevant to a query, best first (hybrid retrieval). Needs memory:read.',
      inputSchema: inputs.cortex_recall,
      annotations: reads,
    },
    guarded('cortex_recall', async ({ accountId }, a: { query: string; limit: number }) =>
      jsonResult({ memories: await memory.recall(accountId, a.query, a.limit) }),
    ),
  );

  server.registerTool(
    'cortex_ask',
    {
      title: 'Ask your memory',
      description:
        'Answers a question from your memory, citing the memories it uses as [n] (written by the configured model, else quoted). Needs memory:read.',
      inputSchema: inputs.cortex_ask,
      annotations: reads,
    },
    guarded('cortex_ask', async ({ accountId }, a: { question: string; limit: number }) =>
      jsonResult(await memory.ask(accountId, a.question, a.limit)),
    ),
  );

  server.registerTool(
    'cortex_forget',
    {
      title: 'Forget memories',
      description:
        'Deletes memories by id, or every memory containing all the words of a query (at most 100). Needs memory:write.',
      inputSchema: inputs.cortex_forget,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    guarded('cortex_forget', async ({ accountId }, a: { ids?: string[]; query?: string }) => {
      const forgotten = await memory.forget(accountId, a);
      return jsonResult({ forgotten: forgotten.length, memories: forgotten });
    }),
  );

  server.registerTool(
    'cortex_manifest',
    {
      title: 'What your memory holds',
      description: 'How many memories are stored, by source and kind. Needs memory:read.',
      inputSchema: inputs.cortex_manifest,
      annotations: reads,
    },
    guarded('cortex_manifest', async ({ accountId }) => jsonResult(await memory.manifest(accountId))),
  );

  server.registerTool(
    'cortex_status',
    {
      title: 'Memory index health',
      description:
        'Memory count, full-text index health and whether vector retrieval is on. Needs memory:read.',
      inputSchema: inputs.cortex_status,
      annotations: reads,
    },
    guarded('cortex_status', async ({ accountId }) => jsonResult(await memory.status(accountId))),
  );

  server.registerTool(
    'cortex_connectable_sources',
    {
      title: 'Sources you can connect',
      description:
        'Integrations that can fill your memory, from the integration registry. Needs memory:read.',
      inputSchema: inputs.cortex_connectable_sources,
      annotations: reads,
    },
    guarded('cortex_connectable_sources', async () =>
      jsonResult({ sources: connectableSources(services.registry.list()) }),
    ),
  );

  server.registerTool(
    'cortex_connect_link',
    {
      title: 'Link to connect a source',
      description: 'The browser link that connects a source to one of your offices. Needs memory:read.',
      inputSchema: inputs.cortex_connect_link,
      annotations: reads,
    },
    guarded(
      'cortex_connect_link',
      async ({ principal }, a: { integrationId: string; officeId: string; instance?: string }) => {
        const known = connectableSources(services.registry.list()).some(
          (x) => x.integrationId === a.integrationId,
        );
        if (!known)
          return toolError(`${a.integrationId} is not a connectable source; see cortex_connectable_sources.`);
        if (!principalCoversOffice(principal, a.officeId)) {
          return toolError(`You are not a member of office ${a.officeId}.`);
        }
        return jsonResult({ connectUrl: connectLink(base, a.integrationId, a.officeId, a.instance) });
      },
    ),
  );
}
