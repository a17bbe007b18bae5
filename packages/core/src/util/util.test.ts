import fc from 'fast-check';
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

  it('hides a quoted path whole (spaces, one segment), and paths after ; | or curly quotes', () => {
    const cases: [string, string][] = [
      [
        "EACCES: permission denied, open '/srv/My Data/memory/u.jsonl'",
        "EACCES: permission denied, open '<path>'",
      ],
      ["rename '/srv/a b/c' -> '/srv/d e/f'", "rename '<path>' -> '<path>'"],
      ['ENOENT: stat "/opt"', 'ENOENT: stat "<path>"'],
      ["open 'C:\\Users\\Jane Doe\\a.txt'", "open '<path>'"],
      ['file;/srv/app/secret.txt', 'file;<path>'],
      ['a|/srv/app/secret.txt', 'a|<path>'],
      ['see “/srv/app/data” and ‘/srv/x/y’', 'see “<path>” and ‘<path>’'],
      // Not paths: prose with an apostrophe, relative paths.
      ["it's the user's file", "it's the user's file"],
      ["open 'notes/today.md'", "open 'notes/today.md'"],
    ];
    for (const [raw, safe] of cases) expect(modelSafeErrorMessage(new Error(raw)), raw).toBe(safe);
  });

  it('stays linear on hostile messages full of quotes and slashes', () => {
    const hostile = `${"'/".repeat(200_000)}${'"/a'.repeat(100_000)}`;
    const started = performance.now();
    modelSafeErrorMessage(new Error(hostile));
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('safePathSegment', () => {
  it('never yields a path separator or a dot segment, and keeps distinct inputs distinct', () => {
    for (const value of ['..', '.', '../x', 'a/b', 'a\\b', '']) {
      const out = safePathSegment(value);
      expect(out).not.toMatch(/[/\\]/);
      expect(out.startsWith('.')).toBe(false);
    }
    expect(safePathSegment('a/b')).not.toBe(safePathSegment('a_b'));
    expect(safePathSegment('acme')).toBe('acme');
    expect(safePathSegment('')).toBe('_');
  });

  it('is injective, also on case-insensitive file systems (the alice@example.com collision)', () => {
    const adversarial = [
      'alice@example.com',
      'alice_example.com-ff8d9819',
      'alice_example.com',
      'Alice@example.com',
      'ALICE@EXAMPLE.COM',
      '',
      '_',
      '_0040',
      '.',
      '..',
      '\ud800',
      '\ufffd',
      'x'.repeat(100),
      `${'x'.repeat(99)}y`,
      `${'x'.repeat(40)}~`,
    ];
    const idArb = fc.oneof(
      fc.constantFrom(...adversarial),
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.stringMatching(/^[a-z0-9_.@-]{0,70}$/),
    );
    fc.assert(
      fc.property(idArb, idArb, (a, b) => {
        fc.pre(a !== b);
        const [x, y] = [safePathSegment(a), safePathSegment(b)];
        expect(x.toLowerCase()).not.toBe(y.toLowerCase());
        for (const out of [x, y]) {
          expect(out.length).toBeGreaterThan(0);
          expect(out.length).toBeLessThanOrEqual(73);
          expect(out).toMatch(/^[a-z0-9_~-]+$/);
        }
      }),
      { numRuns: 5_000 },
    );
    const outputs = new Set(adversarial.map((id) => safePathSegment(id).toLowerCase()));
    expect(outputs.size).toBe(adversarial.length);
  });
});
