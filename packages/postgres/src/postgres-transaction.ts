import { KsadkError } from '@ksadk/core';
import type { Pool, PoolClient } from 'pg';

/** Whether an error is a quota refusal, after which what the transaction dropped stays dropped. */
export const isQuotaRefusal = (error: unknown): boolean =>
  KsadkError.isInstance(error) && error.code === 'approval_quota_exceeded';

/**
 * Runs `body` on a client of its own; `body` begins and commits its transaction. When it throws,
 * the transaction is rolled back and the client discarded — unless `committed(error)` says the
 * body committed before throwing (a quota refusal), when the client goes back to the pool.
 */
export async function onClient<T>(
  pool: Pool,
  body: (client: PoolClient) => Promise<T>,
  committed: (error: unknown) => boolean = () => false,
): Promise<T> {
  const client = await pool.connect();
  let failed = false;
  try {
    return await body(client);
  } catch (error) {
    if (!committed(error)) {
      failed = true;
      await client.query('ROLLBACK').catch(() => undefined);
    }
    throw error;
  } finally {
    client.release(failed);
  }
}
