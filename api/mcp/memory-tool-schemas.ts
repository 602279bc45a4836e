// The memory tools' input schemas, built once: converting a zod schema per request for every tool
// cost more than the rest of an MCP call (about 3 ms per server instance).
import { z } from 'zod';

const source = z.string().min(1).max(200).optional().describe('Where this came from (a title, URL or app)');
const occurredAt = z.iso.datetime({ offset: true }).optional().describe('When it happened (ISO 8601)');
const nothing = z.object({});

export const memoryToolInputs = {
  cortex_remember: z.object({ text: z.string().trim().min(1).max(20_000), source, occurredAt }),
  cortex_ingest: z.object({
    content: z.string().trim().min(1).max(1_000_000),
    source: z.string().min(1).max(200).describe('The document title, path or URL'),
    occurredAt,
  }),
  cortex_ingest_conversation: z.object({
    messages: z
      .array(z.object({ role: z.string().min(1).max(40), content: z.string().max(20_000) }))
      .min(1)
      .max(2000),
    source,
    occurredAt,
  }),
  cortex_recall: z.object({
    query: z.string().trim().min(1).max(2000),
    limit: z.number().int().min(1).max(50).default(5),
  }),
  cortex_ask: z.object({
    question: z.string().trim().min(1).max(2000),
    limit: z.number().int().min(1).max(20).default(5),
  }),
  cortex_forget: z
    .object({
      ids: z
        .array(
          z
            .string()
            .max(28)
            .regex(/^mem_[a-z2-7]{24}$/),
        )
        .min(1)
        .max(100)
        .optional(),
      query: z.string().trim().min(1).max(2000).optional(),
    })
    .refine((a) => a.ids !== undefined || a.query !== undefined, 'give ids or query'),
  cortex_manifest: nothing,
  cortex_status: nothing,
  cortex_connectable_sources: nothing,
  cortex_connect_link: z.object({
    integrationId: z.string().min(1).max(40),
    officeId: z.string().min(1).max(63),
    instance: z.string().min(1).max(40).optional(),
  }),
};

export type MemoryToolInput<K extends keyof typeof memoryToolInputs> = z.infer<(typeof memoryToolInputs)[K]>;
