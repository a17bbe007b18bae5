// For the tests of every package: a loopback TCP port. Imports nothing from the packages.
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (nothing listens on it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
