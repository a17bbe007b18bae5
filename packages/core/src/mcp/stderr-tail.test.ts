import { describe, expect, it } from 'vitest';
import { StderrTail } from './stderr-tail.js';

describe('StderrTail', () => {
  it('keeps everything until the capacity, then only the last bytes', () => {
    const tail = new StderrTail(8);
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

  it('never holds more than its capacity, whatever is written', () => {
    const tail = new StderrTail(1024);
    for (let i = 0; i < 2000; i += 1) tail.push(Buffer.alloc(777, 65 + (i % 26)));
    expect(Buffer.byteLength(tail.text())).toBe(1024);
    expect(tail.total).toBe(2000 * 777);
  });

  it('drops the rest of a character cut by the wrap instead of showing U+FFFD', () => {
    const tail = new StderrTail(5);
    tail.push(Buffer.from('ééé')); // 6 bytes: the first byte of the first é is gone
    expect(tail.text()).toBe('éé');
  });

  it('keeps nothing with a capacity of 0', () => {
    const tail = new StderrTail(0);
    tail.push(Buffer.from('abc'));
    expect([tail.text(), tail.total]).toEqual(['', 3]);
  });
});
