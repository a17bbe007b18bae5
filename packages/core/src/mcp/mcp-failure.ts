/** The HTTP status of a Streamable HTTP session the server no longer knows. */
const HTTP_NOT_FOUND = 404;
/** The HTTP status of a request whose credentials the server refused. */
const HTTP_UNAUTHORIZED = 401;

/** What a failed MCP request says about its session. */
export type McpFailure =
  | 'session_expired'
  | 'unauthorized'
  | 'timed_out'
  | 'connection_closed'
  | 'other';

/**
 * How a request failed, by the SDK's `ErrorCode`s (`RequestTimeout`; `ConnectionClosed`: the
 * transport ended — a stdio server exited — with requests pending) and the HTTP 404 of an expired
 * session (a 401: the credentials were refused). The SDK's types are imported here, when a request has failed (the session that sent it
 * loaded the SDK already), so importing the toolset loads none of the SDK.
 */
export async function mcpFailureOf(error: unknown): Promise<McpFailure> {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === HTTP_NOT_FOUND) return 'session_expired';
  if (code === HTTP_UNAUTHORIZED && (await isHttpError(error))) return 'unauthorized';
  if ((error as Error | undefined)?.name === 'UnauthorizedError') return 'unauthorized';
  const { ErrorCode } = await import('@modelcontextprotocol/sdk/types.js');
  if (code === ErrorCode.RequestTimeout) return 'timed_out';
  if (code === ErrorCode.ConnectionClosed) return 'connection_closed';
  return 'other';
}

/** Whether `error` is an HTTP status the transport saw (not a JSON-RPC error code the server chose). */
async function isHttpError(error: unknown): Promise<boolean> {
  const [{ StreamableHTTPError }, { SseError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
  ]);
  return error instanceof StreamableHTTPError || error instanceof SseError;
}
