import type { KsadkError } from '@ksadk/core';
import { runStoreOperation, toStoreUnavailableError } from '@ksadk/core/adapter';

/** Wraps a driver failure as `store_unavailable` (core's {@link toStoreUnavailableError}). */
export function storeError(operation: string, error: unknown): KsadkError {
  return toStoreUnavailableError(error, { store: 'postgres', storeName: 'PostgreSQL', operation });
}

/**
 * Runs one store operation bounded by `timeoutMs` and, when given, by `signal` (core's
 * {@link runStoreOperation}): driver errors and timeouts become `store_unavailable`
 * ("PostgreSQL could not <operation>: …"), without the connection string or password.
 */
export function guarded<T>(
  operation: string,
  timeoutMs: number,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  return runStoreOperation(
    { store: 'postgres', storeName: 'PostgreSQL', operation, timeoutMs, signal },
    work,
  );
}
