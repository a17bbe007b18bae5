import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolGateway } from '../../../gateway/create-tool-gateway.js';
import type { ToolGateway } from '../../../gateway/gateway-types.js';

/** An HTTP server on 127.0.0.1 that counts the requests it receives. */
export interface CountingServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Requests received so far. */
  readonly requests: IncomingMessage[];
  /** TCP connections accepted so far (a connection that never sent a request counts too). */
  connections(): number;
  close(): Promise<void>;
}

/** Starts a {@link CountingServer}; `handler` answers every request. */
export async function startCountingServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<CountingServer> {
  const requests: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    requests.push(request);
    handler(request, response);
  });
  // Any connection counts too: a request that never finished its headers is still a request.
  const sockets = new Set<import('node:net').Socket>();
  let accepted = 0;
  server.on('connection', (socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    connections: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A gateway in `full` mode whose persisted outputs go to a fresh temporary directory. */
export async function createTestGateway(): Promise<{
  gateway: ToolGateway;
  dir: string;
  cleanup(): Promise<void>;
}> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ksadk-web-'));
  const gateway = createToolGateway({
    approvalMode: 'full',
    env: { AGENTENGINE_UI_DIR: path.join(dir, 'ui') },
  });
  return { gateway, dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Races `promise` against a wall-clock bound: a hang fails the test instead of stalling it. */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
