import { describe, expect, it } from 'vitest';
import { KsadkError } from '../errors/ksadk-error.js';
import { flagFromEnv, wholeNumberFromEnv } from './env.js';

const configError = (variable: string) =>
  expect.objectContaining({ code: 'invalid_config', details: { variable } });

describe('the one reader of variables', () => {
  it('reads whole numbers; unset or blank gives the fallback; anything else names the variable', () => {
    expect(wholeNumberFromEnv({ A: ' 42 ' }, 'A', 7)).toBe(42);
    expect(wholeNumberFromEnv({ A: '' }, 'A', 7)).toBe(7);
    expect(wholeNumberFromEnv({}, 'A', undefined)).toBeUndefined();
    expect(wholeNumberFromEnv({ A: '', B: '3' }, ['A', 'B'], 7)).toBe(3);
    for (const value of ['-1', '1.5', '1e3', 'ten', '0x10', '9'.repeat(20)]) {
      expect(() => wholeNumberFromEnv({ A: value }, 'A', 7)).toThrow(KsadkError);
      expect(() => wholeNumberFromEnv({ A: value }, 'A', 7)).toThrow(configError('A'));
    }
    expect(() => wholeNumberFromEnv({ A: '0' }, 'A', 7, 1)).toThrow(
      /A must be a whole number of at least 1, got "0"/,
    );
  });

  it('reads flags with one set of words, and refuses any other', () => {
    for (const word of ['1', 'TRUE', 'yes', 'On']) expect(flagFromEnv({ F: word }, 'F')).toBe(true);
    for (const word of ['0', 'false', 'NO', 'off'])
      expect(flagFromEnv({ F: word }, 'F', true)).toBe(false);
    expect(flagFromEnv({}, 'F', true)).toBe(true);
    expect(flagFromEnv({ F: ' ' }, 'F')).toBe(false);
    expect(() => flagFromEnv({ F: 'enabled' }, 'F')).toThrow(configError('F'));
  });

  it('quotes at most 40 characters of a bad value', () => {
    const error = (() => {
      try {
        wholeNumberFromEnv({ A: 'x'.repeat(10_000) }, 'A', 1);
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error?.message.length).toBeLessThan(120);
  });
});
