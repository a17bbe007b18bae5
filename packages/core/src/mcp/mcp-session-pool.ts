import type { McpConnection, McpSession } from './mcp-connection.js';

/** The one pooled session of a toolset (not a client per call). */
export interface McpSessionPool {
  /** The session, opened when there is none (or its stdio server exited). */
  current(): Promise<McpSession>;
  /** Forgets `dead` when it is still the pooled session, and closes it. */
  drop(dead: Promise<McpSession>): Promise<void>;
  /** Closes the session and the connection; the next `current()` reconnects. */
  close(): Promise<void>;
}

/** Pools the sessions of one connection: one at a time, reopened after it is lost. */
export function createSessionPool(connection: McpConnection): McpSessionPool {
  let session: Promise<McpSession> | undefined;
  /** The session `session` resolved to, once it has. */
  let opened: McpSession | undefined;
  const forget = (): void => {
    session = undefined;
    opened = undefined;
  };
  return {
    current() {
      // A stdio server that exited is replaced (after its back-off) by the next use.
      if (opened && !opened.alive()) forget();
      if (!session) {
        const attempt = connection.open();
        session = attempt;
        attempt.then(
          (value) => {
            if (session === attempt) opened = value;
          },
          () => {
            if (session === attempt) session = undefined;
          },
        );
      }
      return session;
    },
    async drop(dead) {
      if (session === dead) forget();
      await dead.then((s) => s.close()).catch(() => undefined);
    },
    async close() {
      const active = session;
      forget();
      await Promise.all([
        active?.then((s) => s.close()).catch(() => undefined),
        connection.close(),
      ]);
    },
  };
}
