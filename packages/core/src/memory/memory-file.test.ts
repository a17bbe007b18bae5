import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryScope } from './memory-backend.js';
import { memoryFileOf } from './memory-file.js';
import { createFileMemoryBackend } from './memory-stores.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ksadk-mem-scope-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const VICTIM = 'alice@example.com';
/** Ids built to collide with the victim's or with each other under a lossy or case-folding encoding. */
const ADVERSARIAL = [
  'alice_example.com-ff8d9819', // the victim's segment under the old cleaning encoder
  'alice_example.com',
  'Alice@example.com',
  'ALICE@EXAMPLE.COM',
  'alice@example.com ',
  'alice%40example.com',
  'alice_0040example_002ecom', // the victim's segment under the current encoder
  'A',
  'a',
  '',
  '_',
  '.',
  '..',
  '../x',
  'x/..',
  'x',
  '..\\x',
  '/',
  '\\',
  '~',
  'con',
  `${'u'.repeat(200)}1`,
  `${'u'.repeat(200)}2`,
  `${'U'.repeat(200)}2`,
  '\ud800',
  '\udc00',
  'é',
  'e\u0301',
];

describe('memory scopes never collide', () => {
  it('no adversarial user or account id reads alice@example.com’s memories through the file backend', async () => {
    const store = createFileMemoryBackend({ dir });
    const victim: MemoryScope = { accountId: 'acme', userId: VICTIM };
    await store.save(victim, { content: 'secret alice passport number' });
    for (const id of ADVERSARIAL) {
      for (const scope of [
        { accountId: 'acme', userId: id },
        { accountId: id, userId: VICTIM },
        { accountId: id, userId: id },
      ]) {
        expect(
          await store.search(scope, 'secret alice passport', 10),
          JSON.stringify(scope),
        ).toEqual([]);
        expect(await store.search(scope, '', 10), JSON.stringify(scope)).toEqual([]);
      }
    }
    // And the other way round: what the adversaries save never shows up for alice.
    for (const id of ADVERSARIAL) {
      await store.save({ accountId: 'acme', userId: id }, { content: `planted by ${id}` });
    }
    expect((await store.search(victim, '', 100)).map((m) => m.content)).toEqual([
      'secret alice passport number',
    ]);
  });

  it('adversarial pairs of ids get distinct memory files, also case-insensitively', () => {
    const files = new Map<string, string>();
    for (const accountId of ['acme', ...ADVERSARIAL]) {
      for (const userId of ADVERSARIAL) {
        const file = memoryFileOf(dir, { accountId, userId }).toLowerCase();
        const previous = files.get(file);
        expect(previous, `${JSON.stringify([accountId, userId])} vs ${previous}`).toBeUndefined();
        files.set(file, JSON.stringify([accountId, userId]));
      }
    }
  });

  it('any two distinct (accountId, userId) pairs get memory files that differ, also case-insensitively, inside the folder', () => {
    const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    const id = fc.oneof(
      fc.constantFrom(...ADVERSARIAL, VICTIM),
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({
        unit: fc.constantFrom('a', 'A', '_', '.', '/', '\\', '@', '-', '0'),
        maxLength: 90,
      }),
      fc.string({ unit: lone, maxLength: 3 }),
    );
    const scope = fc.record({ accountId: id, userId: id });
    fc.assert(
      fc.property(scope, scope, (a, b) => {
        fc.pre(a.accountId !== b.accountId || a.userId !== b.userId);
        const fileA = memoryFileOf(dir, a);
        const fileB = memoryFileOf(dir, b);
        for (const file of [fileA, fileB]) {
          const relative = path.relative(dir, file);
          expect(relative.split(path.sep)).toHaveLength(2);
          expect(relative.startsWith('..')).toBe(false);
        }
        expect(fileA).not.toBe(fileB);
        expect(fileA.toLowerCase()).not.toBe(fileB.toLowerCase());
        expect(fileA.toUpperCase()).not.toBe(fileB.toUpperCase());
      }),
      { numRuns: 5000 },
    );
  });
});
