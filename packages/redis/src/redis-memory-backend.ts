import { createHash } from 'node:crypto';
import { KsadkError } from '@ksadk/core';
import { checkOptions } from '@ksadk/core/adapter';
import {
  type MemoryBackend,
  type MemoryScope,
  newMemoryRecord,
  rankMemories,
} from '@ksadk/core/memory';
import { createIndexedCache } from './indexed-cache.js';
import { keyPrefixOf } from './key-prefix.js';
import { openRedis, type RedisConnectionOptions } from './redis-connection.js';
import { guarded } from './store-error.js';

/** Options of {@link createRedisMemoryBackend}. */
export interface RedisMemoryBackendOptions extends RedisConnectionOptions {
  /** Prefix of every key. @default 'ksadk:' */
  keyPrefix?: string;
  /** Records kept per (account, user); the oldest go first. @default 5000 */
  maxRecordsPerScope?: number;
  /** Bound on each operation; past it the call fails with `store_unavailable`. @default 5000 */
  timeoutMs?: number;
}

/** A {@link MemoryBackend} on Redis. */
export interface RedisMemoryBackend extends MemoryBackend {
  readonly kind: 'redis';
  /** Closes the client the backend opened from `url`; a client you passed stays open. */
  close(): Promise<void>;
}

/**
 * Long-term memory on Redis: one list per (account, user), whose key is the SHA-256 of the pair
 * (so no id, whatever separators it holds, can name another scope's list). A save appends and
 * trims to the newest `maxRecordsPerScope` in one `MULTI`; a search reads at most that many
 * records, in pages, and ranks them exactly as core's embedded stores do (shared terms weighted
 * by rarity, ties to the newest; an empty query gives the newest), reading at most the first
 * 2,000 characters and 64 terms of the query. Metadata is stored as JSON without `__proto__` keys.
 *
 * @example
 * ```ts
 * const memory = createRedisMemoryBackend({ url: 'redis://127.0.0.1:6379', maxRecordsPerScope: 1000 });
 * const tools = createMemoryToolset({ memory });
 * ```
 */
export function createRedisMemoryBackend(options: RedisMemoryBackendOptions): RedisMemoryBackend {
  checkOptions(
    options,
    { client: true, url: true, keyPrefix: true, maxRecordsPerScope: true, timeoutMs: true },
    'createRedisMemoryBackend()',
  );
  const prefix = keyPrefixOf(options.keyPrefix, 'createRedisMemoryBackend()');
  const max = options.maxRecordsPerScope ?? 5000;
  if (!Number.isInteger(max) || max < 1)
    throw new KsadkError(
      'invalid_config',
      'createRedisMemoryBackend({ maxRecordsPerScope }) must be a positive whole number.',
    );
  const timeoutMs = options.timeoutMs ?? 5_000;
  const connection = openRedis(options, 'createRedisMemoryBackend()');
  const { client } = connection;
  const cache = createIndexedCache();
  const keyOf = (scope: MemoryScope): string =>
    `${prefix}memory:${createHash('sha256')
      .update(JSON.stringify([scope.accountId, scope.userId]))
      .digest('hex')}`;

  return {
    kind: 'redis',
    async save(scope, entry) {
      const record = newMemoryRecord(entry);
      const key = keyOf(scope);
      await guarded('save a memory', timeoutMs, async () => {
        const replies = await client
          .multi()
          .rpush(key, JSON.stringify(record))
          .ltrim(key, -max, -1)
          .exec();
        const failed = replies?.find(([error]) => error);
        if (!replies || failed) throw failed?.[0] ?? new Error('the transaction was discarded');
      });
      return record;
    },
    async search(scope, query, limit, searchOptions = {}) {
      const { signal } = searchOptions;
      signal?.throwIfAborted();
      if (!(limit > 0)) return [];
      // One LRANGE: a consistent snapshot of the scope, at most `max` records.
      const key = keyOf(scope);
      const texts = await guarded(
        'read memories',
        timeoutMs,
        () => client.lrange(key, -max, -1),
        signal,
      );
      signal?.throwIfAborted();
      const entries = await cache.index(key, texts, signal);
      return rankMemories(entries, query, limit, searchOptions);
    },
    close: () => connection.close(),
  };
}
