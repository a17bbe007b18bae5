import type { LookupFunction } from 'node:net';
import type * as Undici from 'undici';
import type { ResolvedAddress } from './resolver.js';

/** Timeouts of a pinned agent, in milliseconds. */
export interface PinnedAgentTimeouts {
  readonly connectMs: number;
  readonly headersMs: number;
  readonly bodyMs: number;
}

/**
 * A `lookup` that answers with the given addresses and nothing else: whatever DNS says at connect
 * time, the socket goes to an address that was checked.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = typeof options === 'object' ? options.family : options;
    const wanted =
      family === 4 || family === 6 || family === 'IPv4' || family === 'IPv6'
        ? addresses.filter((entry) => `${entry.family}` === `${family}`.replace('IPv', ''))
        : addresses;
    const answer = wanted.length > 0 ? wanted : addresses;
    if (typeof options === 'object' && options.all) {
      (callback as (error: null, all: ResolvedAddress[]) => void)(null, [...answer]);
      return;
    }
    callback(null, answer[0]!.address, answer[0]!.family);
  };
}

/**
 * An undici `Agent` whose connections go only to `addresses` (its `connect.lookup` is pinned).
 * It reads no proxy variables; close it when the request is done.
 */
export function createPinnedAgent(
  addresses: readonly ResolvedAddress[],
  timeouts: PinnedAgentTimeouts,
  undici: typeof Undici,
): Undici.Agent {
  return new undici.Agent({
    connect: { lookup: pinnedLookup(addresses), timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    connections: 1,
  });
}
