import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** What every part of a Redis store (approvals, executions) works with. */
export interface RedisStoreContext {
  readonly client: Redis | Cluster;
  /**
   * `<keyPrefix>{<keyPrefix>approvals}:` (or `executions`): every key of the store starts with
   * it (one slot).
   */
  readonly base: string;
  /** Bound on each operation, in milliseconds. */
  readonly timeoutMs: number;
  /** The store's clock (epoch ms). */
  readonly now: () => number;
}

/** Hex SHA-256 of JSON-encoded parts: how ids of any shape become key parts. */
export const keyHash = (parts: readonly string[]): string =>
  createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/** The fields of an HGETALL reply (`[field, value, …]`) by name. */
export function hashFields(fields: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let index = 0; index + 1 < fields.length; index += 2)
    map.set(fields[index]!, fields[index + 1]!);
  return map;
}

/** A page cursor this store made (a whole number), or `undefined` for anything else. */
export const scoreCursor = (cursor: string | undefined): string | undefined =>
  cursor === undefined ? '+inf' : /^\d{1,16}$/.test(cursor) ? `(${cursor}` : undefined;

/** A listing filter as the scripts read it: '1' and the value, or '0' and ''. */
export const filterArgs = (value: string | undefined): string[] =>
  value === undefined ? ['0', ''] : ['1', value];

/** How many index entries one listing call reads at most, for a page of `limit`. */
export const scanBound = (limit: number): number => Math.min(2_000, Math.max(256, 4 * limit));

/** Defines `commands` on the client once (a client shared by several stores has them already). */
export function defineCommands(
  client: Redis | Cluster,
  commands: Readonly<Record<string, { readonly numberOfKeys: number; readonly lua: string }>>,
): void {
  const defined = client as unknown as Record<string, unknown>;
  for (const [name, definition] of Object.entries(commands))
    if (typeof defined[name] !== 'function') client.defineCommand(name, definition);
}
