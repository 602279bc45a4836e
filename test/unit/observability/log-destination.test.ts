import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchedLines, type LineWriter } from '../../../api/observability/log-destination.ts';

/** A writer that records what it is given and reports 'drain' when told to. */
class RecordingWriter extends EventEmitter implements LineWriter {
  readonly writes: string[] = [];
  syncFlushes = 0;
  write(data: string): boolean {
    this.writes.push(data);
    return true;
  }
  flushSync(): void {
    this.syncFlushes++;
  }
}

// Request lines are the ones that wait for company (request-log.ts queues one per request).
const line = (n: number) => `{"reqId":"r${n}","msg":"request completed"}\n`;
const audit = '{"msg":"api key created","keyId":"key_1"}\n';

describe('BatchedLines', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds lines until the delay has passed, then hands them over as one string, in order', () => {
    vi.useFakeTimers();
    const writer = new RecordingWriter();
    const lines = new BatchedLines(writer, { delayMs: 50 });
    lines.queue(line(1));
    lines.queue(line(2));
    vi.advanceTimersByTime(49);
    expect(writer.writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writer.writes).toEqual([line(1) + line(2)]);
    lines.queue(line(3));
    vi.advanceTimersByTime(50);
    expect(writer.writes).toEqual([line(1) + line(2), line(3)]);
  });

  it('hands a batch over at once when it reaches its size, without waiting for the delay', () => {
    vi.useFakeTimers();
    const writer = new RecordingWriter();
    const lines = new BatchedLines(writer, { delayMs: 50, maxChars: 3 * line(1).length });
    lines.queue(line(1));
    lines.queue(line(2));
    expect(writer.writes).toEqual([]);
    lines.queue(line(3));
    expect(writer.writes).toEqual([line(1) + line(2) + line(3)]);
    vi.advanceTimersByTime(100);
    expect(writer.writes).toHaveLength(1);
  });

  it('hands any line pino writes over at once, after the request lines waiting before it', () => {
    vi.useFakeTimers();
    const writer = new RecordingWriter();
    const lines = new BatchedLines(writer, { delayMs: 50 });
    lines.queue(line(1));
    lines.write(audit);
    expect(writer.writes).toEqual([line(1) + audit]);
    lines.queue(line(2));
    expect(writer.writes).toHaveLength(1);
    vi.advanceTimersByTime(50);
    expect(writer.writes).toEqual([line(1) + audit, line(2)]);
  });

  it('writes everything synchronously on exit', () => {
    const writer = new RecordingWriter();
    const lines = new BatchedLines(writer);
    lines.queue(line(1));
    lines.flushSync();
    expect(writer.writes).toEqual([line(1)]);
    expect(writer.syncFlushes).toBe(1);
  });

  it('drains: hands the batch over and resolves when the writer reports that all of it is written', async () => {
    const writer = new RecordingWriter();
    const lines = new BatchedLines(writer, { delayMs: 60_000 });
    lines.queue(line(1));
    let drained = false;
    const done = lines.drain(60_000).then(() => {
      drained = true;
    });
    expect(writer.writes).toEqual([line(1), '']);
    await Promise.resolve();
    expect(drained).toBe(false);
    writer.emit('drain');
    await done;
    expect(drained).toBe(true);
  });
});
