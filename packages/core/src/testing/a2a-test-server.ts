import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testAgentCard, testAgentExecutor } from './a2a-test-agent.js';

/** Metadata and texts the test agent received. */
export interface A2ATestServer {
  readonly url: string;
  readonly received: {
    text: string;
    metadata: Record<string, unknown> | undefined;
    authorization: string | undefined;
  }[];
  close(): Promise<void>;
}

/**
 * A real A2A agent (the official SDK's `DefaultRequestHandler` over JSON-RPC, with an express
 * app) on 127.0.0.1 for tests. What it does depends on the text it receives:
 * `fail…` fails, `ask…` needs input, `login…` needs auth, `big:<n>` answers n characters,
 * `hello…` replies with a direct message, `stream…` sends three artifact chunks; anything else
 * completes with an artifact echoing the text.
 */
export async function startA2ATestServer(): Promise<A2ATestServer> {
  const [{ default: express }, sdk, server, serverExpress] = await Promise.all([
    import('express'),
    import('@a2a-js/sdk'),
    import('@a2a-js/sdk/server'),
    import('@a2a-js/sdk/server/express'),
  ]);
  const received: A2ATestServer['received'] = [];
  let authorization: string | undefined;
  const executor = testAgentExecutor(sdk, server.AgentEvent, (text, metadata) => {
    received.push({ text, metadata, authorization });
  });

  // Listen first, so the card can name the real port; then mount the A2A routes.
  const app = express();
  const http: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const port = (http.address() as AddressInfo).port;
  const card = testAgentCard(port);
  const handler = new server.DefaultRequestHandler(
    card,
    new server.InMemoryTaskStore(),
    executor as never,
  );
  app.use((req, _res, next) => {
    if (req.method === 'POST') authorization = req.headers.authorization;
    next();
  });
  app.use(
    '/.well-known/agent-card.json',
    serverExpress.agentCardHandler({
      agentCardProvider: { getAgentCard: async () => card } as never,
    }),
  );
  app.use(
    '/a2a/jsonrpc',
    serverExpress.jsonRpcHandler({
      requestHandler: handler,
      userBuilder: serverExpress.UserBuilder.noAuthentication,
    }),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
