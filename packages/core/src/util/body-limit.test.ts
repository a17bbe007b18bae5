import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  BodyReadError,
  BodyTooLargeError,
  capBodyStream,
  consumeBodyAtMost,
  declaredLength,
  declaresMoreThan,
  readBodyAtMost,
} from './body-limit.js';

/** An endless stream of 1 KiB chunks that counts how often it was pulled and whether it was cancelled. */
function endless() {
  const state = { pulls: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        state.pulls += 1;
        controller.enqueue(new Uint8Array(1024).fill(97));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

describe('the body-limit kit', () => {
  it('reads at most the cap of an endless stream, then stops pulling and cancels it', async () => {
    const { stream, state } = endless();
    const read = await readBodyAtMost(stream, 10_000);
    expect([read.bytes.length, read.truncated]).toEqual([10_000, true]);
    expect(state.pulls).toBeLessThanOrEqual(12);
    expect(state.cancelled).toBe(true);
  });

  it('an endless Node stream is destroyed at the cap', async () => {
    let reads = 0;
    const node = new Readable({
      read() {
        reads += 1;
        this.push(Buffer.alloc(4096, 98));
      },
    });
    const read = await readBodyAtMost(node, 50_000);
    expect([read.bytes.length, read.truncated]).toEqual([50_000, true]);
    expect(node.destroyed).toBe(true);
    expect(reads).toBeLessThan(40);
  });

  it('a body of exactly the cap is whole; one byte more is truncated', async () => {
    const body = (size: number) => new Blob([new Uint8Array(size)]).stream();
    expect((await readBodyAtMost(body(4096), 4096)).truncated).toBe(false);
    const over = await readBodyAtMost(body(4097), 4096);
    expect([over.bytes.length, over.truncated]).toEqual([4096, true]);
    expect(await readBodyAtMost(body(0), 0)).toMatchObject({ truncated: false });
  });

  it('errors of the stream come wrapped, errors of the consumer as they are', async () => {
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(3));
        controller.error(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      },
    });
    const error = await readBodyAtMost(broken, 100).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BodyReadError);
    expect((error as BodyReadError).cause).toMatchObject({ code: 'ECONNRESET' });
    const mine = new Error('disk full');
    const { stream, state } = endless();
    await expect(
      consumeBodyAtMost(stream, 100_000, () => {
        throw mine;
      }),
    ).rejects.toBe(mine);
    expect(state.cancelled).toBe(true);
  });

  it('reads Content-Length only when it is a plain number', () => {
    const headers = (value: string | null) => ({ get: () => value });
    expect(declaredLength(headers('123'))).toBe(123);
    for (const value of [null, '', '-1', '1e9', '0x10', '12 34', '99999999999999999999'])
      expect(declaredLength(headers(value))).toBeUndefined();
    expect(declaresMoreThan(headers('101'), 100)).toBe(true);
    expect(declaresMoreThan(headers('100'), 100)).toBe(false);
  });

  it('a capped stream fails once more than the cap went through', async () => {
    const { stream } = endless();
    const reader = capBodyStream(stream, 5000).getReader();
    let seen = 0;
    const error = await (async () => {
      for (;;) {
        const next = await reader.read();
        if (next.done) return undefined;
        seen += next.value.byteLength;
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect(seen).toBeLessThanOrEqual(5000);
  });
});
