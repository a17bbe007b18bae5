import { lookup } from 'node:dns/promises';

/** One resolved address, as `dns.promises.lookup(host, { all: true })` returns it. */
export interface ResolvedAddress {
  readonly address: string;
  /** 4 or 6. */
  readonly family: number;
}

/**
 * Resolves a host name to every address it has. `web_fetch` calls it exactly once per request
 * (per redirect hop), checks every address, and connects only to those: the connection can never
 * go to an address that was not checked.
 */
export type WebResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver: `dns.promises.lookup(hostname, { all: true })`. */
export const systemResolver: WebResolver = (hostname) => lookup(hostname, { all: true });
