import type * as Undici from 'undici';

let loading: Promise<typeof Undici> | undefined;

/**
 * undici, loaded on first use: importing it costs over 100 ms, which the catalogue (and every
 * agent that never fetches a page) should not pay at start-up.
 */
export function loadUndici(): Promise<typeof Undici> {
  loading ??= import('undici');
  return loading;
}
