import { describe, expect, it } from 'vitest';
import { clampOutputBytes } from './output-limit.js';

describe('clampOutputBytes', () => {
  it('clamps maxOutputBytes: invalid → 1 MiB, at most 64 MiB', () => {
    expect(clampOutputBytes(undefined)).toBe(1024 * 1024);
    expect(clampOutputBytes(Number.NaN)).toBe(1024 * 1024);
    expect(clampOutputBytes(-1)).toBe(1024 * 1024);
    expect(clampOutputBytes(10.7)).toBe(10);
    expect(clampOutputBytes(1e12)).toBe(64 * 1024 * 1024);
  });
});
