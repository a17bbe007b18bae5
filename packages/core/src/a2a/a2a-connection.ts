import type { Client } from '@a2a-js/sdk/client';
import { KsadkError } from '../errors/ksadk-error.js';

/** The `@a2a-js/sdk` module (its types and enums), loaded on first use. */
export type Sdk = typeof import('@a2a-js/sdk');
type SdkClient = typeof import('@a2a-js/sdk/client');

/** A client connected to one remote agent (its card read), with the SDK it was made with. */
export interface A2AConnection {
  client: Client;
  sdk: Sdk;
}

async function loadSdk(): Promise<[Sdk, SdkClient]> {
  try {
    return await Promise.all([import('@a2a-js/sdk'), import('@a2a-js/sdk/client')]);
  } catch (error) {
    throw new KsadkError(
      'unsupported',
      'A2A needs the optional package @a2a-js/sdk (1.x): npm i @a2a-js/sdk',
      { cause: error },
    );
  }
}

/** Reads the agent's card at `url` and makes a JSON-RPC or HTTP+JSON client, as the card says. */
async function connect(url: string, fetchImpl: typeof fetch): Promise<A2AConnection> {
  const [sdk, clientSdk] = await loadSdk();
  const {
    ClientFactory,
    ClientFactoryOptions,
    DefaultAgentCardResolver,
    JsonRpcTransportFactory,
    RestTransportFactory,
  } = clientSdk;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl }),
        new RestTransportFactory({ fetchImpl }),
      ],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return { client: await factory.createFromUrl(url.replace(/\/+$/, '')), sdk };
}

/**
 * The connection to the agent at `url`, made on the first call and shared by the later ones; a
 * failed attempt is forgotten, so the next call tries again.
 */
export function lazyConnection(url: string, fetchImpl: typeof fetch): () => Promise<A2AConnection> {
  let connection: Promise<A2AConnection> | undefined;
  return () => {
    if (!connection) {
      const attempt = connect(url, fetchImpl);
      connection = attempt;
      attempt.catch(() => {
        if (connection === attempt) connection = undefined;
      });
    }
    return connection;
  };
}
