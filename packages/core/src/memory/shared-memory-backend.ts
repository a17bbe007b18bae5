import { KsadkError } from '../errors/ksadk-error.js';
import { importOptional } from '../util/deferred-modules.js';
import { registerSecret } from '../util/redact.js';
import type { MemoryBackend } from './memory-backend.js';

/** A memory backend on a shared server, opened on first use; `ready()` opens it now. */
export interface SharedMemoryBackend extends MemoryBackend {
  /** Loads the store package and connects; rejects with a `KsadkError` when it cannot. */
  ready(): Promise<void>;
  /** Closes the connection it opened. */
  close(): Promise<void>;
}

interface Opened extends MemoryBackend {
  close?(): Promise<void>;
}

/**
 * The Redis or PostgreSQL memory backend a `KSADK_LTM_BACKEND` / `KSADK_LTM_URL` pair names,
 * loaded from `@ksadk/redis` or `@ksadk/postgres` when first used (so the environment reader stays
 * synchronous and the packages stay optional).
 */
export function sharedMemoryBackend(kind: 'redis' | 'postgres', url: string): SharedMemoryBackend {
  try {
    const password = new URL(url).password;
    if (password) registerSecret(decodeURIComponent(password));
  } catch {
    throw new KsadkError('invalid_config', 'KSADK_LTM_URL must be a connection URL.');
  }
  let opened: Promise<Opened> | undefined;
  const open = (): Promise<Opened> => {
    opened ??= (async () => {
      const why = `KSADK_LTM_BACKEND is ${kind}`;
      if (kind === 'redis') {
        const module = await importOptional<{
          createRedisMemoryBackend(options: { url: string }): Opened;
        }>('@ksadk/redis', why, '@ksadk/redis ioredis');
        return module.createRedisMemoryBackend({ url });
      }
      const module = await importOptional<{
        createPostgresMemoryBackend(options: { connectionString: string }): Opened;
      }>('@ksadk/postgres', why, '@ksadk/postgres pg');
      return module.createPostgresMemoryBackend({ connectionString: url });
    })();
    return opened;
  };
  return {
    kind,
    ready: async () => {
      await open();
    },
    save: async (scope, entry) => (await open()).save(scope, entry),
    search: async (scope, query, limit, options) =>
      (await open()).search(scope, query, limit, options),
    close: async () => {
      if (!opened) return;
      const backend = await opened.catch(() => undefined);
      await backend?.close?.();
    },
  };
}
