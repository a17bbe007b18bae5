import { KsadkError, registerSecret } from '@ksadk/core';
import { Pool } from 'pg';

/** Where a store finds PostgreSQL: a pool you manage, or a connection string. */
export interface PostgresConnectionOptions {
  /** A `pg` Pool you created; the store leaves it open on `close()`. */
  pool?: Pool;
  /** `postgres://user:password@host:port/db`; the store opens (and closes) a pool of its own. */
  connectionString?: string;
}

/** A pool and how to let go of it. */
export interface PostgresConnection {
  readonly pool: Pool;
  /** Ends the pool when the store created it; a no-op for a pool given to the store. */
  close(): Promise<void>;
}

/** Registers the connection string's password as a secret, so no message ever carries it. */
function registerPassword(connectionString: string): void {
  try {
    registerSecret(decodeURIComponent(new URL(connectionString).password));
  } catch {
    // Not a URL: a `key=value` string.
  }
  for (const match of connectionString.matchAll(/password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/gi))
    registerSecret(match[1]!.replace(/^'|'$/g, ''));
}

/**
 * Opens the connection a store was configured with.
 *
 * @throws {KsadkError} `invalid_config` unless exactly one of `pool` and `connectionString` is given.
 */
export function openPostgres(
  options: PostgresConnectionOptions,
  where: string,
  timeoutMs: number,
): PostgresConnection {
  if (
    (options.pool === undefined) === (options.connectionString === undefined) ||
    options.connectionString === ''
  )
    throw new KsadkError(
      'invalid_config',
      `${where} needs exactly one of \`pool\` and \`connectionString\`.`,
    );
  if (options.pool) return { pool: options.pool, close: async () => {} };
  registerPassword(options.connectionString!);
  const pool = new Pool({
    connectionString: options.connectionString,
    // Waiting for a connection (a burst queues behind the pool's 10) counts toward the store's
    // time limit, not a shorter one of its own.
    connectionTimeoutMillis: timeoutMs,
    max: 10,
  });
  // An idle connection that drops is replaced on the next query; the event must not crash us.
  pool.on('error', () => {});
  let ended: Promise<void> | undefined;
  return {
    pool,
    close() {
      ended ??= pool.end().catch(() => undefined);
      return ended;
    },
  };
}
