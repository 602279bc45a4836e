// Pure: splits documents and conversations into memory-sized chunks on natural boundaries.

export const CHUNK_CHARS = 800;

/** Sentences, keeping their closing punctuation; a run without punctuation is one sentence. */
export function sentences(text: string): string[] {
  return (text.match(/[^.!?\n]+(?:[.!?]+|\n+|$)/g) ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Packs pieces into chunks of at most `max` characters; a single longer piece is cut hard. */
function pack(pieces: readonly string[], max: number, joiner: string): string[] {
  const chunks: string[] = [];
  let current = '';
  const flush = () => {
    if (current) chunks.push(current);
    current = '';
  };
  for (const piece of pieces) {
    if (piece.length > max) {
      flush();
      for (let i = 0; i < piece.length; i += max) chunks.push(piece.slice(i, i + max));
      continue;
    }
    if (current && current.length + joiner.length + piece.length > max) flush();
    current = current ? `${current}${joiner}${piece}` : piece;
  }
  flush();
  return chunks;
}

/** Paragraphs first; a paragraph too long for one chunk is split between sentences. */
export function chunkDocument(text: string, max = CHUNK_CHARS): string[] {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const pieces = paragraphs.flatMap((p) => (p.length > max ? pack(sentences(p), max, ' ') : [p]));
  return pack(pieces, max, '\n\n');
}

export interface ConversationMessage {
  role: string;
  content: string;
}

/** Consecutive turns stay together, each line prefixed with its speaker. */
export function chunkConversation(messages: readonly ConversationMessage[], max = CHUNK_CHARS): string[] {
  const turns = messages
    .filter((m) => m.content.trim().length > 0)
    .map((m) => `${m.role}: ${m.content.trim()}`);
  return pack(turns, max, '\n');
}
