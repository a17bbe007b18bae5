import { KsadkError } from '@ksadk/core';

/**
 * The key prefix of a store: `'ksadk:'` by default; at most 100 characters; no `{` or `}`, since
 * the approval store puts its own Redis Cluster hash tag after it.
 *
 * @throws {KsadkError} `invalid_config` for anything else.
 */
export function keyPrefixOf(given: string | undefined, where: string): string {
  const prefix = given ?? 'ksadk:';
  if (typeof prefix !== 'string' || prefix.length > 100 || /[{}]/.test(prefix)) {
    throw new KsadkError(
      'invalid_config',
      `${where}: keyPrefix must be a string of at most 100 characters without { or }.`,
    );
  }
  return prefix;
}
