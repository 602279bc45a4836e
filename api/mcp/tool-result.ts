// Pure: MCP tool results — JSON for the model to read, the same value as structured content.

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The text is compact JSON: indented, the pricing and a recall were 1.4 times as long, which a model
 * reads as tokens and every answer carries, for nothing the model needs.
 */
export function jsonResult(value: object): ToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** A refusal the model can read and act on; not a protocol error. */
export function toolError(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
