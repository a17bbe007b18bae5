import type { ResultBudget, ResultBudgetOptions } from '../budget/result-budget.js';
import type { InvocationContext } from '../context/invocation-context.js';
import type { AskHuman } from '../tool/human-input.js';
import type { Tool, ToolRunner } from '../tool/tool.js';
import type { ApprovalGrant } from './approval/grant.js';
import type { ApprovalMode } from './approval/mode.js';
import type { ApprovalStore } from './approval/store.js';
import type { ArgumentLimits } from './model-arguments.js';
import type { ApprovalRequest, ToolResult } from './results.js';
import type { ToolProgressEvent } from './run-with-timeout.js';
import type { ToolTracingOptions } from './tool-tracing.js';

/** How a call ended, as reported to {@link ToolGatewayHooks.onToolEnd}. */
export type ToolCallOutcome =
  | 'ok'
  | 'error'
  | 'invalid_arguments'
  | 'approval_required'
  | 'approval_rejected'
  | 'approval_already_used'
  | 'timeout'
  | 'aborted';

/** What observers learn when a call starts. */
export interface ToolStartEvent {
  toolName: string;
  callId: string;
  invocationId: string | undefined;
}

/** What observers learn when a call ends. */
export interface ToolEndEvent extends ToolStartEvent {
  durationMs: number;
  outcome: ToolCallOutcome;
  /** The result's `error_type` when it failed. */
  errorType: string | undefined;
}

/**
 * Observers. They run synchronously inside the call; what they throw is reported to
 * `onHookError` (default: a process warning) and never changes the call.
 */
export interface ToolGatewayHooks {
  onToolStart?: (event: ToolStartEvent) => void;
  onToolEnd?: (event: ToolEndEvent) => void;
  /** A new approval request was stored (not called when an open one is returned again). */
  onApprovalRequested?: (request: ApprovalRequest, context: InvocationContext) => void;
  onHookError?: (error: unknown, hook: string) => void;
}

/** Options for {@link createToolGateway}. */
export interface ToolGatewayOptions {
  /**
   * Default approval mode (`ask`, `risk`, `full`, or the aliases `strict`, `off`). A
   * request-scoped mode in the invocation context wins over it.
   * @default `KSADK_TOOL_APPROVAL_MODE`, else `risk`
   */
  approvalMode?: string;
  /** Where approval requests live. @default an in-memory store with per-session and per-account quotas */
  approvalStore?: ApprovalStore;
  /**
   * HMAC secret that signs grants (≥ 16 bytes). Required (option or environment) when the approval
   * store is `shared` between processes.
   * @default `KSADK_APPROVAL_SECRET`, else random per process
   */
  approvalSecret?: string | Uint8Array;
  /**
   * Retired secrets that still verify grants after a rotation (never used to sign): rotate by
   * making the old secret a previous one and setting a new `approvalSecret` on every instance.
   * @default `KSADK_APPROVAL_PREVIOUS_SECRETS` (comma-separated), else none
   */
  approvalPreviousSecrets?: readonly (string | Uint8Array)[];
  /** How long a request and its grant stay valid. @default 900000 (15 minutes) */
  approvalTtlMs?: number;
  /** Per-call timeout when the tool sets none. @default 120000 */
  timeoutMs?: number;
  /** Result budget (environment variables cap it). */
  budget?: ResultBudgetOptions;
  /** Limits on model arguments, checked before validation. @default 4 MiB of JSON, 64 levels deep */
  argumentLimits?: Partial<ArgumentLimits>;
  /** Observers. */
  hooks?: ToolGatewayHooks;
  /**
   * OpenTelemetry spans for every call (`execute_tool <name>`, GenAI semantic conventions), when
   * `@opentelemetry/api` is installed; `false` turns them off. Arguments and results are not
   * recorded unless opted in.
   * @default on, from the global tracer provider
   */
  tracing?: ToolTracingOptions | false;
  /**
   * The environment to read `KSADK_*` variables from. Its secret-looking values (names with KEY,
   * TOKEN, SECRET, PASSWORD…) are redacted from everything tools return. @default process.env
   */
  env?: NodeJS.ProcessEnv;
}

/** Per-call options, supplied by the host or adapter, never by the model. */
export interface ToolCallOptions {
  /** The framework's tool call id; also names persisted outputs. @default a random id */
  callId?: string;
  /** Aborts the call. */
  signal?: AbortSignal;
  /** A grant from {@link ToolGateway.approve} (or its token) for this exact call. */
  approval?: ApprovalGrant | string;
  /** Overrides the timeout for this call. */
  timeoutMs?: number;
  /**
   * Progress of a long call (an MCP server's progress notifications, a tool's own reports), for a
   * progress bar or an adapter's stream. Never shown to the model; a listener that throws is ignored.
   */
  onProgress?: (event: ToolProgressEvent) => void;
  /**
   * How a running tool asks the human a question (an MCP server's elicitation): the adapter pauses
   * and resumes with the answer. Without it, every question is declined.
   */
  askHuman?: AskHuman;
  /**
   * A call that stopped to ask the human keeps its approval for the resumed run: `run` uses it at
   * once; `ask` presents it as an approval request again, already approved, for an adapter that
   * replays the human's earlier decision in order (LangGraph's `interrupt()`).
   * @default 'run'
   */
  continuation?: 'run' | 'ask';
}

/**
 * Who decides or looks at an approval request. Requests belong to the account (and user) whose
 * call asked for them; a principal of another account is told the request does not exist.
 * `{ admin: true }` is the explicit escape for trusted admin tooling: it may see and decide any
 * account's requests.
 */
export type ApprovalPrincipal =
  | { readonly accountId: string; readonly userId?: string }
  | { readonly admin: true };

/** Options for {@link ToolGateway.approve} and {@link ToolGateway.reject}. */
export interface ApprovalDecisionOptions {
  /** Why; reported back to the model on rejection. */
  reason?: string;
  /**
   * Who decides. @default the current invocation context's account and user (an absent account
   * is the empty account of single-tenant use)
   */
  principal?: ApprovalPrincipal;
}

/** The one door every tool call goes through. */
export interface ToolGateway extends ToolRunner {
  /**
   * Runs a call: validates the arguments, decides whether it needs approval, executes with a
   * timeout, budgets and redacts the result. Never throws and never rejects for anything a tool,
   * a file or a model did: failures come back as `{ ok: false, error_type, error_message }`.
   */
  invoke(tool: Tool, rawArgs: unknown, options?: ToolCallOptions): Promise<ToolResult>;
  /**
   * Approves a pending request and returns a single-use grant bound to its tool, arguments,
   * account, session and expiry. Approving an already approved, unused request returns an
   * equivalent grant.
   *
   * @throws {KsadkError} `approval_not_found` for an unknown, expired, rejected or used request,
   * or one that belongs to another account or user than the principal's.
   */
  approve(approvalId: string, options?: ApprovalDecisionOptions): Promise<ApprovalGrant>;
  /**
   * Rejects a pending request: the next time the same call comes back it answers
   * `approval_rejected` with the reason, without running.
   *
   * @throws {KsadkError} `approval_not_found` for an unknown, expired or already decided request,
   * or one that belongs to another account or user than the principal's.
   */
  reject(approvalId: string, options?: ApprovalDecisionOptions): Promise<void>;
  /**
   * The stored request with its full arguments, if it exists, has not expired and belongs to
   * the principal (default: the current invocation context's account and user).
   */
  getApprovalRequest(
    approvalId: string,
    options?: { principal?: ApprovalPrincipal },
  ): Promise<ApprovalRequest | undefined>;
  /** Whether calling `tool` in the current invocation context would need a decision. */
  requiresApproval(tool: Tool): boolean;
  /** The gateway's default approval mode (before any request-scoped override). */
  readonly approvalMode: ApprovalMode;
  /** The resolved result budget. */
  readonly budget: ResultBudget;
}
