import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JsonSchema } from '../tool/tool.js';
import type { McpConnection } from './mcp-connection.js';
import { mcpFailureOf } from './mcp-failure.js';
import { listPages } from './mcp-pages.js';
import type { McpSessionPool } from './mcp-session-pool.js';

/** A tool as `tools/list` describes it. */
export interface RemoteTool {
  name: string;
  description?: string;
  inputSchema: JsonSchema;
  execution?: { taskSupport?: string };
  /** The server's hints about the tool (claims, trusted only with `trustAnnotations`). */
  annotations?: { readOnlyHint?: unknown; destructiveHint?: unknown; idempotentHint?: unknown };
}

/**
 * Every page of `tools/list`. Listing is read-only, so it is tried again after a lost session or
 * connection: an HTTP server up to three times (a restarted server can leave several dead
 * keep-alive connections behind), a stdio server that stopped mid-listing once — but a stdio
 * server that could not start is not started again at once (its back-off).
 */
export async function listRemoteTools(
  pool: McpSessionPool,
  connection: McpConnection,
  timeoutMs: number,
): Promise<RemoteTool[]> {
  for (let attempt = 0; ; attempt += 1) {
    const active = pool.current();
    let client: Client;
    try {
      ({ client } = await active);
    } catch (error) {
      if (connection.kind === 'stdio' || attempt >= 3) throw error;
      continue;
    }
    try {
      return await listPages(async (cursor) => {
        const result = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
        return { items: result.tools as RemoteTool[], nextCursor: result.nextCursor };
      });
    } catch (error) {
      await pool.drop(active);
      const stdioRetries = (await mcpFailureOf(error)) === 'connection_closed' ? 1 : 0;
      if (attempt < (connection.kind === 'stdio' ? stdioRetries : 3)) continue;
      throw error;
    }
  }
}
