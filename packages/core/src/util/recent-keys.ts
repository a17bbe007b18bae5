/** A bounded memory of the last keys seen: membership, and adding (the oldest forgotten first). */
export interface RecentKeys {
  has(key: string): boolean;
  add(key: string): void;
}

/** The last `size` keys added. */
export function recentKeys(size: number): RecentKeys {
  const keys = new Set<string>();
  return {
    has: (key) => keys.has(key),
    add(key) {
      keys.add(key);
      if (keys.size > size) keys.delete(keys.values().next().value as string);
    },
  };
}
