import type { ToolResult } from '../gateway/results.js';
import { inputRequiredResult } from '../tool/human-input.js';
import { PAUSED } from '../tool/paused.js';
import type { ToolExecutionContext } from '../tool/tool.js';
import { modelSafeErrorDetail, modelSafeErrorMessage } from '../util/sanitize-message.js';
import { mcpFailure } from './failure.js';
import type { McpServerConfig } from './mcp-config.js';
import type { McpSession } from './mcp-connection.js';
import { mapMcpCallResult } from './mcp-content.js';
import { mcpFailureOf } from './mcp-failure.js';
import type { createServerRequests, InflightCall } from './mcp-server-requests.js';
import type { McpSessionPool } from './mcp-session-pool.js';

/** What running a `tools/call` needs from its toolset. */
export interface McpCallContext {
  readonly config: McpServerConfig;
  readonly pool: McpSessionPool;
  readonly requests: ReturnType<typeof createServerRequests>;
  /** Whether a progress notification resets the call's timeout. */
  readonly resetTimeoutOnProgress: boolean;
}

const unavailable = (server: string, why: string, midCall = false): ToolResult =>
  mcpFailure('mcp_unavailable', `MCP server ${server} is unavailable: ${why}`, {
    retryable: true,
    // It stopped with the call in flight: the gateway reports a call with side effects as
    // outcome_unknown.
    ...(midCall ? { outcome: 'unknown' as const } : {}),
  });

/** The server refused the credentials (HTTP 401): nothing ran. */
export const unauthorized = (server: string): ToolResult =>
  mcpFailure(
    'mcp_unauthorized',
    `MCP server ${server} refused the credentials (HTTP 401); the call was not run.`,
  );

/** Sends the call and answers the server's questions to the human until its result comes. */
async function resultOf(
  live: McpSession,
  inflight: InflightCall,
  request: { name: string; arguments: Record<string, unknown> },
  context: ToolExecutionContext,
  at: McpCallContext,
): Promise<ToolResult> {
  const running = live.client.callTool(request, undefined, {
    timeout: at.config.timeoutMs,
    // Aborted with the call: its timeout, the caller's signal, or a pause for the human
    // (the gateway stops a call that returned input_required), which cancels the request.
    signal: context.signal,
    onprogress: (progress) =>
      context.reportProgress({
        progress: progress.progress,
        ...(progress.total !== undefined ? { total: progress.total } : {}),
        ...(typeof progress.message === 'string' ? { message: progress.message } : {}),
        resetTimeout: at.resetTimeoutOnProgress,
      }),
    ...(at.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true } : {}),
  });
  running.catch(() => undefined);
  for (;;) {
    const next = await Promise.race([
      running.then((result) => ({ result })),
      inflight.nextQuestion().then((question) => ({ question })),
    ]);
    if ('result' in next) return mapMcpCallResult(next.result);
    // The server asks the human mid-call: through the adapter's pause.
    const answer = await context.askHuman(next.question.request);
    if (answer === PAUSED) {
      next.question.respond({ action: 'cancel' });
      return inputRequiredResult(next.question.request);
    }
    next.question.respond(answer);
  }
}

/** Connection errors that mean a request never reached the server. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/** Whether `error` (or one of its causes) says the request never reached the server. */
function neverSent(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The answer to a call that failed; a lost session is dropped so the next call reconnects. */
async function failedCall(
  error: unknown,
  live: McpSession,
  active: Promise<McpSession>,
  at: McpCallContext,
): Promise<ToolResult> {
  const { config } = at;
  const failure = await mcpFailureOf(error);
  if (failure === 'unauthorized') {
    await at.pool.drop(active);
    return unauthorized(config.name);
  }
  if (failure === 'session_expired') {
    await at.pool.drop(active);
    return mcpFailure(
      'mcp_session_expired',
      `The session with MCP server ${config.name} expired; the call was not run. It is safe to try again.`,
      { retryable: true },
    );
  }
  if (failure === 'timed_out') {
    return mcpFailure(
      'tool_timeout',
      `MCP server ${config.name} did not answer within ${config.timeoutMs} ms.`,
      { retryable: true },
    );
  }
  const ended = live.endedBecause();
  if (failure === 'connection_closed' && ended) {
    // The server process stopped with the call in flight: never replayed.
    await at.pool.drop(active);
    return unavailable(
      config.name,
      `it stopped while the call was running (${modelSafeErrorMessage(ended)}). The call was not retried and may or may not have taken effect; the server is started again on the next call.`,
      true,
    );
  }
  if (
    failure === 'connection_closed' ||
    (error as { code?: unknown }).code === undefined ||
    error instanceof TypeError
  ) {
    await at.pool.drop(active);
    // Unless the connection was refused (the request never left), the server may have got it.
    return unavailable(config.name, modelSafeErrorDetail(error), !neverSent(error));
  }
  // The server's whole message and its cause (bounded, redacted): its second line is often
  // the reason (a connection refused upstream).
  return mcpFailure('mcp_error', modelSafeErrorDetail(error));
}

/**
 * One `tools/call` over the pooled session, never replayed: an expired HTTP session answers
 * `mcp_session_expired`, an unreachable or stopped server `mcp_unavailable` (both `retryable`),
 * and the next call uses a fresh session.
 */
export async function callMcpTool(
  originalName: string,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
  at: McpCallContext,
): Promise<ToolResult> {
  const active = at.pool.current();
  let live: McpSession;
  try {
    live = await active;
  } catch (error) {
    if ((await mcpFailureOf(error)) === 'unauthorized') return unauthorized(at.config.name);
    return unavailable(at.config.name, modelSafeErrorMessage(error));
  }
  const inflight = at.requests.begin(context);
  try {
    return await resultOf(live, inflight, { name: originalName, arguments: args }, context, at);
  } catch (error) {
    if (context.signal.aborted) throw error;
    return await failedCall(error, live, active, at);
  } finally {
    inflight.end();
  }
}
