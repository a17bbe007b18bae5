import { describe, expect, it } from 'vitest';
import { LineSplitter, LineTooLongError } from './json-lines.js';

describe('LineSplitter', () => {
  it('splits lines across chunks, drops a trailing \\r, and keeps a partial line for later', () => {
    const lines = new LineSplitter(100);
    expect(lines.push(Buffer.from('{"a":1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(lines.push(Buffer.from(':2}\r\n\n{"c":3}'))).toEqual(['{"b":2}', '']);
    expect(lines.push(Buffer.from('\n'))).toEqual(['{"c":3}']);
    // A character split across chunks is joined before decoding.
    const text = Buffer.from('"é"\n');
    expect([...lines.push(text.subarray(0, 2)), ...lines.push(text.subarray(2))]).toEqual(['"é"']);
  });

  it('refuses a line past the limit, whether it ends or not, and recovers after clear()', () => {
    const lines = new LineSplitter(8);
    expect(lines.push(Buffer.from('12345678\n'))).toEqual(['12345678']);
    lines.push(Buffer.from('12345'));
    expect(() => lines.push(Buffer.from('6789'))).toThrowError(LineTooLongError);
    expect(() => lines.push(Buffer.from('123456789\n'))).toThrowError('longer than 8 bytes');
    lines.clear();
    expect(lines.push(Buffer.from('ok\n'))).toEqual(['ok']);
  });

  // Wall-clock bounds: retried, so a loaded machine's pause does not fail it; a quadratic
  // splitter (copying the whole line per chunk, ~2 GiB here) fails every attempt.
  it('takes linear time on a long line (16 MiB in 64 KiB chunks)', { retry: 2 }, () => {
    const lines = new LineSplitter(16 * 1024 * 1024);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let worst = 0;
    const started = performance.now();
    for (let i = 0; i < 255; i += 1) {
      const before = performance.now();
      lines.push(chunk);
      worst = Math.max(worst, performance.now() - before);
    }
    expect(lines.push(Buffer.from('\n'))[0]).toHaveLength(255 * 64 * 1024);
    expect(worst).toBeLessThan(50);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
