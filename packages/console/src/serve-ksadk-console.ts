import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KsadkError } from '@ksadk/core';
import { createKsadkConsole, type KsadkConsoleOptions } from './create-ksadk-console.js';

/** Options for {@link serveKsadkConsole}. */
export interface ServeKsadkConsoleOptions extends KsadkConsoleOptions {
  /** Where to listen. @default '127.0.0.1' (another address needs `resolvePrincipal`) */
  readonly host?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
}

/** A running console. */
export interface ServedKsadkConsole {
  /** The address to open: with the token in it, when the console serves one local user. */
  readonly url: string;
  readonly token: string | undefined;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Starts the console on its own `node:http` server — on 127.0.0.1 behind a random token unless
 * you give `resolvePrincipal` — and returns the address to open.
 *
 * @throws {KsadkError} `invalid_config` for a non-loopback `host` without `resolvePrincipal`.
 *
 * @example
 * ```ts
 * const { url } = await serveKsadkConsole({ gateway, tools });
 * console.log(`Approvals: ${url}`);
 * ```
 */
export async function serveKsadkConsole(
  options: ServeKsadkConsoleOptions,
): Promise<ServedKsadkConsole> {
  const { host = '127.0.0.1', port = 0, ...given } = options;
  // The local user's console lives under a path nobody guesses: its cookie goes nowhere else on
  // this host (another local server, another console on another port).
  const consoleOptions =
    given.resolvePrincipal || given.basePath
      ? given
      : { ...given, basePath: `/${randomBytes(12).toString('base64url')}/` };
  if (!consoleOptions.resolvePrincipal && !LOOPBACK.has(host))
    throw new KsadkError(
      'invalid_config',
      `Listening on ${host} needs resolvePrincipal: without it the console serves one local user, on 127.0.0.1 only.`,
    );
  const console = createKsadkConsole(consoleOptions);
  const server = createServer((request, response) => void console.node(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const base = `http://${shown}:${address.port}${consoleOptions.basePath ?? '/'}`;
  return {
    url: console.token ? `${base}?token=${console.token}` : base,
    token: console.token,
    close: async () => {
      await console.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
