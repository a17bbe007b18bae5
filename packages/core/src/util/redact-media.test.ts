import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mediaHoldsSecret, registerSecret } from './redact.js';

// The registry is process-wide: this file registers past the direct-search limit (256) on
// purpose, so its media checks take the one-pass path through the prefix index.
describe('mediaHoldsSecret with more secrets than it searches one by one', () => {
  const secrets = Array.from({ length: 400 }, (_, index) =>
    index % 2 === 0
      ? randomBytes(16).toString('hex')
      : `sk-${randomBytes(9).toString('base64url')}`,
  );
  for (const secret of secrets) registerSecret(secret);

  it('finds a credential in the base64 text, in the decoded bytes (ASCII and UTF-8), and nothing in clean media', () => {
    const hex = secrets[100]!;
    const dashed = secrets[301]!;
    const unicode = 'pässwörd-ü-42';
    registerSecret(unicode);
    const around = (inner: Buffer) => Buffer.concat([randomBytes(3_000), inner, randomBytes(500)]);

    expect(mediaHoldsSecret(`AAAA${hex}AAAA`, Buffer.alloc(0))).toBe(true);
    const ascii = around(Buffer.from(`tEXtComment\0${dashed}`));
    expect(mediaHoldsSecret(ascii.toString('base64'), ascii)).toBe(true);
    const utf8 = around(Buffer.from(unicode, 'utf8'));
    expect(mediaHoldsSecret(utf8.toString('base64'), utf8)).toBe(true);

    for (let round = 0; round < 20; round += 1) {
      const clean = randomBytes(4_000);
      expect(mediaHoldsSecret(clean.toString('base64'), clean)).toBe(false);
    }
  });

  // About 0.15 s here; the bound leaves room for a loaded CI machine, and a stall gets a retry.
  it('stays fast: a 1 MiB part is checked against 400 secrets in under 2 s', { retry: 2 }, () => {
    const bytes = randomBytes(1024 * 1024);
    const base64 = bytes.toString('base64');
    const started = performance.now();
    expect(mediaHoldsSecret(base64, bytes)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
