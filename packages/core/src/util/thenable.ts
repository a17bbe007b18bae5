/**
 * True for anything `await` would wait on: a value with a callable `then` — a native promise, or
 * one from another realm or library (a host may have replaced the global `Promise`), which
 * `instanceof Promise` would miss.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
