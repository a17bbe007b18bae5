import { runStoreOperation } from '@ksadk/core/adapter';

/**
 * Runs one store operation against Redis, bounded by `timeoutMs` and, when given, by `signal`
 * (core's {@link runStoreOperation}): driver errors and timeouts become `store_unavailable`
 * ("Redis could not <operation>: …", never the URL or a password); KsADK's own errors pass
 * through.
 */
export function guarded<T>(
  operation: string,
  timeoutMs: number,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  return runStoreOperation(
    { store: 'redis', storeName: 'Redis', operation, timeoutMs, signal },
    work,
  );
}
