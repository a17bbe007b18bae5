import { KsadkError, registerSecret } from '@ksadk/core';
import { type Cluster, Redis } from 'ioredis';

/** Where a store finds Redis: a client you manage, or a URL the store connects to itself. */
export interface RedisConnectionOptions {
  /** An ioredis client (or Cluster) you created; the store leaves it open on `close()`. */
  client?: Redis | Cluster;
  /** `redis://[:password@]host:port[/db]` (or `rediss://`); the store opens and closes its own client. */
  url?: string;
}

/** A client and how to let go of it. */
export interface RedisConnection {
  readonly client: Redis | Cluster;
  /** Closes the client when the store created it; a no-op for a client given to the store. */
  close(): Promise<void>;
}

/** Registers the URL's password as a secret, so no message or result ever carries it. */
function registerUrlSecret(url: string): void {
  try {
    const parsed = new URL(url);
    registerSecret(decodeURIComponent(parsed.password));
  } catch {
    // An unparsable URL: ioredis reports it, and redaction of URL passwords still applies.
  }
}

/**
 * Opens the connection a store was configured with.
 *
 * @throws {KsadkError} `invalid_config` unless exactly one of `client` and `url` is given.
 */
export function openRedis(options: RedisConnectionOptions, where: string): RedisConnection {
  if ((options.client === undefined) === (options.url === undefined) || options.url === '')
    throw new KsadkError('invalid_config', `${where} needs exactly one of \`client\` and \`url\`.`);
  if (options.client) return { client: options.client, close: async () => {} };
  const url = options.url!;
  registerUrlSecret(url);
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 5_000,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // Failures reach the caller through each command; the event would only print to stderr.
  client.on('error', () => {});
  let closed: Promise<void> | undefined;
  return {
    client,
    close() {
      closed ??= (async () => {
        if (client.status === 'wait' || client.status === 'end') {
          client.disconnect();
          return;
        }
        const quit = client.quit().then(
          () => undefined,
          () => undefined,
        );
        const timer = new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref());
        await Promise.race([quit, timer]);
        client.disconnect();
      })();
      return closed;
    },
  };
}
