import { describe, expect, it } from 'vitest';
import { KsadkError } from '../errors/ksadk-error.js';
import { flagFromEnv, wholeNumberFromEnv } from './env.js';

const configError = (variable: string) =>
  expect.objectContaining({ code: 'invalid_config', details: { variable } });

describe('the one reader of variables', () => {
  it('reads whole numbers; unset or blank gives the fallback; anything else names the variable', () => {
    expect(
      wholeNumberFromEnv({ KSADK_SANDBOX_MAX_SESSIONS: ' 42 ' }, 'KSADK_SANDBOX_MAX_SESSIONS', 7),
    ).toBe(42);
    expect(
      wholeNumberFromEnv({ KSADK_SANDBOX_MAX_SESSIONS: '' }, 'KSADK_SANDBOX_MAX_SESSIONS', 7),
    ).toBe(7);
    expect(wholeNumberFromEnv({}, 'KSADK_SANDBOX_MAX_SESSIONS', undefined)).toBeUndefined();
    expect(
      wholeNumberFromEnv(
        { KSADK_SANDBOX_MAX_SESSIONS: '', KSADK_SANDBOX_TIMEOUT: '3' },
        ['KSADK_SANDBOX_MAX_SESSIONS', 'KSADK_SANDBOX_TIMEOUT'],
        7,
      ),
    ).toBe(3);
    for (const value of ['-1', '1.5', '1e3', 'ten', '0x10', '9'.repeat(20)]) {
      expect(() =>
        wholeNumberFromEnv({ KSADK_SANDBOX_MAX_SESSIONS: value }, 'KSADK_SANDBOX_MAX_SESSIONS', 7),
      ).toThrow(KsadkError);
      expect(() =>
        wholeNumberFromEnv({ KSADK_SANDBOX_MAX_SESSIONS: value }, 'KSADK_SANDBOX_MAX_SESSIONS', 7),
      ).toThrow(configError('KSADK_SANDBOX_MAX_SESSIONS'));
    }
    expect(() =>
      wholeNumberFromEnv({ KSADK_SANDBOX_MAX_SESSIONS: '0' }, 'KSADK_SANDBOX_MAX_SESSIONS', 7, 1),
    ).toThrow(/KSADK_SANDBOX_MAX_SESSIONS must be a whole number of at least 1, got "0"/);
  });

  it('reads flags with one set of words, and refuses any other', () => {
    for (const word of ['1', 'TRUE', 'yes', 'On'])
      expect(
        flagFromEnv({ KSADK_SKILL_ALLOW_HASH_MISMATCH: word }, 'KSADK_SKILL_ALLOW_HASH_MISMATCH'),
      ).toBe(true);
    for (const word of ['0', 'false', 'NO', 'off'])
      expect(
        flagFromEnv(
          { KSADK_SKILL_ALLOW_HASH_MISMATCH: word },
          'KSADK_SKILL_ALLOW_HASH_MISMATCH',
          true,
        ),
      ).toBe(false);
    expect(flagFromEnv({}, 'KSADK_SKILL_ALLOW_HASH_MISMATCH', true)).toBe(true);
    expect(
      flagFromEnv({ KSADK_SKILL_ALLOW_HASH_MISMATCH: ' ' }, 'KSADK_SKILL_ALLOW_HASH_MISMATCH'),
    ).toBe(false);
    expect(() =>
      flagFromEnv(
        { KSADK_SKILL_ALLOW_HASH_MISMATCH: 'enabled' },
        'KSADK_SKILL_ALLOW_HASH_MISMATCH',
      ),
    ).toThrow(configError('KSADK_SKILL_ALLOW_HASH_MISMATCH'));
  });

  it('quotes at most 40 characters of a bad value', () => {
    const error = (() => {
      try {
        wholeNumberFromEnv(
          { KSADK_SANDBOX_MAX_SESSIONS: 'x'.repeat(10_000) },
          'KSADK_SANDBOX_MAX_SESSIONS',
          1,
        );
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error?.message.length).toBeLessThan(120);
  });
});
