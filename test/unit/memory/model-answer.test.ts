// The answer model's pure parts: the prompt, reading [n] citations back, and judging a completion.
import { describe, expect, it } from 'vitest';
import type { MemoryBlock } from '../../../api/memory/answer.ts';
import { ChatModelError, completionText } from '../../../api/memory/chat-model.ts';
import { answerPrompt, parseModelAnswer } from '../../../api/memory/model-answer.ts';

const blocks: MemoryBlock[] = [
  {
    id: 'mem_a',
    content: 'Staging runs in Frankfurt.',
    source: 'ops',
    occurredAt: '2026-01-02T00:00:00.000Z',
    createdAt: '2026-01-03T00:00:00.000Z',
  },
  { id: 'mem_b', content: 'Lunch is at noon.', source: null },
  { id: 'mem_c', content: 'Backups run nightly.', source: 'runbook' },
];

describe('the answer prompt', () => {
  it('numbers the blocks with their source and time and tells the model to cite only them', () => {
    const [system, user] = answerPrompt('Where is staging?', blocks);
    expect(system?.role).toBe('system');
    expect(system?.content).toMatch(/only the numbered memory blocks/);
    expect(system?.content).toMatch(/\[n\]/);
    expect(user?.content).toContain(
      '[1] (source: ops, when: 2026-01-02T00:00:00.000Z)\nStaging runs in Frankfurt.',
    );
    expect(user?.content).toContain('[2]\nLunch is at noon.');
    expect(user?.content).toMatch(/Question: Where is staging\?$/);
  });

  it('cuts a very long block so it cannot crowd out the others', () => {
    const [, user] = answerPrompt('q', [{ id: 'mem_x', content: 'x'.repeat(50_000), source: null }]);
    expect(user?.content.length).toBeLessThan(4200);
  });
});

describe('reading the model’s citations', () => {
  it('maps [n] to the blocks, renumbering them in order of first use', () => {
    const answer = parseModelAnswer('Backups are nightly [3]. Staging is in Frankfurt [1][3].', blocks);
    expect(answer?.answer).toBe('Backups are nightly [1]. Staging is in Frankfurt [2][1].');
    expect(answer?.citations).toEqual([
      {
        n: 1,
        id: 'mem_c',
        source: 'runbook',
        occurredAt: null,
        createdAt: null,
        excerpt: 'Backups run nightly.',
      },
      {
        n: 2,
        id: 'mem_a',
        source: 'ops',
        occurredAt: '2026-01-02T00:00:00.000Z',
        createdAt: '2026-01-03T00:00:00.000Z',
        excerpt: 'Staging runs in Frankfurt.',
      },
    ]);
  });

  it('reads grouped citations and drops numbers that name no block', () => {
    const answer = parseModelAnswer('Staging is in Frankfurt [1, 7]. Also [9]. Lunch [2,2].', blocks);
    expect(answer?.answer).toBe('Staging is in Frankfurt [1]. Also. Lunch [2].');
    expect(answer?.citations.map((c) => c.id)).toEqual(['mem_a', 'mem_b']);
  });

  it('is null when nothing valid is cited', () => {
    expect(parseModelAnswer('Staging is in Frankfurt.', blocks)).toBeNull();
    expect(parseModelAnswer('Staging is in Frankfurt [4] [0].', blocks)).toBeNull();
    expect(parseModelAnswer('[1]', [])).toBeNull();
  });
});

describe('judging a chat completion', () => {
  const reply = (content: unknown, finish_reason = 'stop') => ({
    choices: [{ message: { role: 'assistant', content }, finish_reason }],
  });

  it('takes the first choice’s text', () => {
    expect(completionText(reply('  Frankfurt [1]. '))).toBe('Frankfurt [1].');
  });

  it.each([
    ['no choices', { choices: [] }],
    ['null', null],
    ['a non-string content', reply([{ type: 'text', text: 'x' }])],
    ['an empty reply', reply('   ')],
    ['an error object', { error: { message: 'overloaded' } }],
  ])('rejects %s as malformed', (_label, body) => {
    expect(() => completionText(body)).toThrow(ChatModelError);
    try {
      completionText(body);
    } catch (err) {
      expect((err as ChatModelError).reason).toBe('malformed');
    }
  });

  it('rejects a reply cut at the token limit: half an answer is never the answer', () => {
    expect(() => completionText(reply('Staging is in', 'length'))).toThrow(/cut short/);
  });
});
