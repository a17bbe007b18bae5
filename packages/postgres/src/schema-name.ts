import { KsadkError } from '@ksadk/core';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The schema a store keeps its tables in, quoted for SQL: `'public'` by default; otherwise a
 * lower-case identifier (`[a-z_][a-z0-9_]*`, at most 63 characters), so it needs no escaping and
 * no two spellings name the same schema.
 *
 * @throws {KsadkError} `invalid_config` for anything else.
 */
export function schemaOf(given: string | undefined, where: string): { name: string; sql: string } {
  const name = given ?? 'public';
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new KsadkError(
      'invalid_config',
      `${where}: schema must be a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most 63 characters).`,
    );
  }
  return { name, sql: `"${name}"` };
}
