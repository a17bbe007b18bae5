import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clampOutputBytes, OutputTail } from './output-tail.js';

describe('OutputTail', () => {
  it('keeps exactly the last `limit` bytes of any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 50 }), { maxLength: 30 }),
        fc.integer({ min: 0, max: 200 }),
        (chunks, limit) => {
          const tail = new OutputTail(limit);
          for (const chunk of chunks) tail.push(Buffer.from(chunk));
          const all = Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));
          expect(tail.total).toBe(all.length);
          expect(tail.truncated).toBe(all.length > limit);
          if (!tail.truncated) expect(tail.text()).toBe(all.toString('utf8'));
        },
      ),
    );
  });

  it('drops the remains of a character split by the cut instead of showing U+FFFD', () => {
    const tail = new OutputTail(5);
    tail.push(Buffer.from('ab€€', 'utf8')); // 2 + 3 + 3 bytes: the cut lands inside the first €
    expect(tail.text()).toBe('€');
    const exact = new OutputTail(3);
    exact.push(Buffer.from('x€', 'utf8'));
    expect(exact.text()).toBe('€');
  });

  it('a zero limit keeps nothing but still counts', () => {
    const tail = new OutputTail(0);
    tail.push(Buffer.from('abc'));
    expect(tail.text()).toBe('');
    expect(tail.truncated).toBe(true);
  });

  it('clamps maxOutputBytes: invalid → 1 MiB, at most 64 MiB', () => {
    expect(clampOutputBytes(undefined)).toBe(1024 * 1024);
    expect(clampOutputBytes(Number.NaN)).toBe(1024 * 1024);
    expect(clampOutputBytes(-1)).toBe(1024 * 1024);
    expect(clampOutputBytes(10.7)).toBe(10);
    expect(clampOutputBytes(1e12)).toBe(64 * 1024 * 1024);
  });
});
