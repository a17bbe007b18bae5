import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteTail } from './byte-tail.js';

/** What a tail of `limit` bytes must show for everything written: the last bytes, cut cleanly. */
function expectedTail(all: Buffer, limit: number): string {
  if (all.length <= limit) return all.toString('utf8');
  let bytes = all.subarray(all.length - limit);
  let start = 0;
  while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start += 1;
  bytes = bytes.subarray(start);
  return bytes.toString('utf8');
}

describe('ByteTail', () => {
  it('keeps everything until the capacity, then only the last bytes', () => {
    const tail = new ByteTail(8);
    expect(tail.text()).toBe('');
    tail.push(Buffer.from('abc'));
    tail.push(Buffer.from('def'));
    expect([tail.text(), tail.truncated]).toEqual(['abcdef', false]);
    tail.push(Buffer.from('ghij'));
    expect([tail.text(), tail.truncated, tail.total]).toEqual(['cdefghij', true, 10]);
    tail.push(Buffer.from('k'));
    expect(tail.text()).toBe('defghijk');
    tail.push(Buffer.from('0123456789'));
    expect(tail.text()).toBe('23456789');
    tail.push(Buffer.from('xy'));
    expect(tail.text()).toBe('456789xy');
  });

  it('keeps exactly the last `limit` bytes of any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 50 }), { maxLength: 30 }),
        fc.integer({ min: 0, max: 200 }),
        (chunks, limit) => {
          const tail = new ByteTail(limit);
          for (const chunk of chunks) tail.push(Buffer.from(chunk));
          const all = Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));
          expect(tail.total).toBe(all.length);
          expect(tail.truncated).toBe(all.length > limit);
          expect(tail.text()).toBe(expectedTail(all, limit));
        },
      ),
    );
  });

  it('never holds more than its capacity, whatever is written', () => {
    const tail = new ByteTail(1024);
    for (let i = 0; i < 2000; i += 1) tail.push(Buffer.alloc(777, 65 + (i % 26)));
    expect(Buffer.byteLength(tail.text())).toBe(1024);
    expect(tail.total).toBe(2000 * 777);
  });

  it('does not reserve its whole capacity for a little output', () => {
    const before = process.memoryUsage().arrayBuffers;
    const tails = Array.from({ length: 64 }, () => new ByteTail(64 * 1024 * 1024));
    for (const tail of tails) tail.push(Buffer.from('ok\n'));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
    expect(tails.every((tail) => tail.text() === 'ok\n')).toBe(true);
  });

  it('drops the rest of a character cut by the wrap instead of showing U+FFFD', () => {
    const tail = new ByteTail(5);
    tail.push(Buffer.from('ééé')); // 6 bytes: the first byte of the first é is gone
    expect(tail.text()).toBe('éé');
    const split = new ByteTail(5);
    split.push(Buffer.from('ab€€', 'utf8')); // 2 + 3 + 3 bytes: the cut lands inside the first €
    expect(split.text()).toBe('€');
    const exact = new ByteTail(3);
    exact.push(Buffer.from('x€', 'utf8'));
    expect(exact.text()).toBe('€');
  });

  it('keeps nothing with a capacity of 0, but still counts', () => {
    const tail = new ByteTail(0);
    tail.push(Buffer.from('abc'));
    expect([tail.text(), tail.total, tail.truncated]).toEqual(['', 3, true]);
  });
});
