import { createHash } from 'node:crypto';

const KEPT = /^[a-z0-9-]$/;
/** Longest encoded segment kept whole; longer ones are cut and end in `~` + a hash. */
const MAX_ENCODED = 64;
const KEPT_PREFIX = 40;

/**
 * Turns any id (account, user, session, tool call…) into one path segment, **injectively**:
 * two different ids never give the same segment, on case-sensitive and case-insensitive file
 * systems alike.
 *
 * Lower-case ASCII letters, digits and `-` are kept; every other UTF-16 code unit (upper-case
 * letters, `_`, `.`, `/`, `@`, lone surrogates…) becomes `_` + 4 lower-case hex digits. The
 * empty string (an absent id) becomes `_`, which no non-empty id can produce. An encoding
 * longer than 64 characters keeps a 40-character prefix and ends in `~` + 32 hex digits of
 * its SHA-256 (`~` never appears otherwise). The result never contains a separator, never
 * starts with `.`, and is at most 73 characters.
 *
 * @example
 * ```ts
 * safePathSegment('acme'); // "acme"
 * safePathSegment('alice@example.com'); // "alice_0040example_002ecom"
 * safePathSegment(''); // "_"
 * ```
 */
export function safePathSegment(value: string): string {
  if (value === '') return '_';
  let out = '';
  for (let index = 0; index < value.length; index += 1) {
    const char = value[index]!;
    out += KEPT.test(char) ? char : `_${value.charCodeAt(index).toString(16).padStart(4, '0')}`;
  }
  if (out.length <= MAX_ENCODED) return out;
  // Cut on an escape boundary so the prefix stays readable.
  let cut = KEPT_PREFIX;
  const lastEscape = out.lastIndexOf('_', cut - 1);
  if (lastEscape >= 0 && lastEscape + 5 > cut) cut = lastEscape;
  const hash = createHash('sha256').update(out).digest('hex').slice(0, 32);
  return `${out.slice(0, cut)}~${hash}`;
}
