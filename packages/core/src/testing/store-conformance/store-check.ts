import type { Check, CheckContext } from './conformance-run.js';

/** Makes one named check that runs `body` against a fresh store made with `settings`. */
export type StoreCheck<Store, Settings> = (
  name: string,
  settings: Settings,
  body: (store: Store, c: CheckContext) => Promise<void>,
) => Check;

/**
 * The check maker of a store factory: each check makes its own store with its own settings and
 * closes it (`close()`, when the store has one) afterwards, whether the check passed or not.
 */
export function storeCheck<Store extends object, Settings>(
  make: (settings: Settings) => Store | Promise<Store>,
): StoreCheck<Store, Settings> {
  return (name, settings, body) => ({
    name,
    async run(c) {
      const store = await make(settings);
      try {
        await body(store, c);
      } finally {
        await (store as { close?: () => unknown }).close?.();
      }
    },
  });
}
