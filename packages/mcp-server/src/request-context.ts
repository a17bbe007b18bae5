import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

/** How gated calls are decided, resolved (`McpApprovalOptions` with their defaults). */
export interface ApprovalSettings {
  readonly elicitation: boolean;
  readonly waitMs: number;
  readonly progressEveryMs: number;
}

/** What one `tools/call` can do towards its client, as the server's handlers give it. */
export interface McpRequestContext {
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
  /** A request to the client related to this call (elicitation goes out on the call's own stream). */
  readonly sendRequest: <T>(
    request: { method: string; params: Record<string, unknown> },
    schema: { parse(value: unknown): T },
    options: { signal: AbortSignal; timeout: number },
  ) => Promise<T>;
  /** What the client declared at initialisation. */
  readonly clientCapabilities: () => ClientCapabilities | undefined;
  /** A progress notification for this call, when the client asked for progress (else nothing). */
  readonly progress: (
    progress: number,
    total: number | undefined,
    message: string | undefined,
  ) => void;
  readonly approvals: ApprovalSettings;
}
