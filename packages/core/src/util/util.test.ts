import { describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalJson } from './canonical-json.js';
import { safePathSegment } from './safe-segment.js';
import { modelSafeErrorMessage, redactSecrets, secretValuesFromEnv } from './sanitize-message.js';

describe('canonicalJson', () => {
  it('sorts keys recursively and ignores key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalDigest({ x: 1, y: 'é' })).toBe(canonicalDigest({ y: 'é', x: 1 }));
    expect(canonicalDigest({ x: 1 })).not.toBe(canonicalDigest({ x: '1' }));
  });

  it('refuses cycles', () => {
    const value: Record<string, unknown> = {};
    value['self'] = value;
    expect(() => canonicalJson(value)).toThrowError(/cyclic/);
  });
});

describe('modelSafeErrorMessage', () => {
  it('keeps the first line, hides host paths and secrets, caps the length', () => {
    const secrets = secretValuesFromEnv({
      MY_API_KEY: 'abcdefgh12345',
      HOME: '/root',
      SHORT_TOKEN: 'x',
    });
    expect(secrets).toEqual(['abcdefgh12345']);
    expect(redactSecrets('key=abcdefgh12345;', secrets)).toBe('key=[REDACTED];');
    expect(modelSafeErrorMessage(new Error("ENOENT: open '/srv/app/data/x.json'\n at foo"))).toBe(
      "ENOENT: open '<path>'",
    );
    expect(modelSafeErrorMessage(new Error('C:\\Users\\me\\x.txt missing'))).toBe('<path> missing');
    expect(modelSafeErrorMessage(new Error('relative/path.txt missing'))).toBe(
      'relative/path.txt missing',
    );
    expect(modelSafeErrorMessage(new Error('x'.repeat(900)))).toHaveLength(500);
    expect(modelSafeErrorMessage({})).toBe('The tool failed.');
  });
});

describe('safePathSegment', () => {
  it('never yields a path separator or a dot segment, and keeps distinct inputs distinct', () => {
    for (const value of ['..', '.', '../x', 'a/b', 'a\\b', '']) {
      const out = safePathSegment(value, '_default');
      expect(out).not.toMatch(/[/\\]/);
      expect(out === '.' || out === '..').toBe(false);
    }
    expect(safePathSegment('a/b')).not.toBe(safePathSegment('a_b'));
    expect(safePathSegment('acme')).toBe('acme');
  });
});
