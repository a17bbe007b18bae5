import type { ResultBudget, ResultBudgetOptions } from '../budget/result-budget.js';
import type { InvocationContext } from '../context/invocation-context.js';
import type { ConnectedCredential, CredentialAnswer } from '../credentials/credential-broker.js';
import type { OAuthClientConfig } from '../credentials/credential-spec.js';
import type { CredentialStore } from '../credentials/credential-store.js';
import type { ExecutionOutcome, ExecutionSummary } from '../executions/execution-record.js';
import type { ExecutionStore } from '../executions/execution-store.js';
import type { AskHuman } from '../tool/human-input.js';
import type { Tool, ToolRunner } from '../tool/tool.js';
import type { ApprovalAuditEntry } from './approval/audit-entry.js';
import type { ApprovalDecidedEvent } from './approval/gate-kit.js';
import type { ApprovalGrant } from './approval/grant.js';
import type { ApprovalMode } from './approval/mode.js';
import type { StandingGrant, StandingGrantMatch } from './approval/standing-grant.js';
import type { ApprovalStore } from './approval/store.js';
import type { ApprovalListStatus, ApprovalPage } from './approval/store-queries.js';
import type { ArgumentLimits } from './model-arguments.js';
import type {
  ApprovalInboxItem,
  ApprovalRequest,
  ApprovalRequiredResult,
  ToolResult,
} from './results.js';
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
  | 'approval_expired'
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
  /**
   * A new approval request was stored (not called when an open one is returned again): notify a
   * human (a webhook, a chat message). It gets the inbox item — the request with its account,
   * user, session and why. A promise it returns is not awaited; its rejection is reported.
   */
  onApprovalRequested?: (request: ApprovalInboxItem, context: InvocationContext) => unknown;
  /**
   * A request was decided: approved (once, edited, with a standing grant), rejected, expired — or
   * a pending request was settled by a standing decision. Not called per call a standing grant lets
   * through (those are in the audit log).
   */
  onApprovalDecided?: (event: ApprovalDecidedEvent) => unknown;
  /**
   * A call's execution record was ended (succeeded, failed, unknown): for a live "what did the
   * agent do" view. It gets the record without its result. A promise it returns is not awaited.
   */
  onExecution?: (record: ExecutionSummary) => unknown;
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
  /** How long a human has to decide on a request (and a grant stays usable). @default 900000 (15 minutes) */
  approvalTtlMs?: number;
  /**
   * How long a request is kept after its deadline, so that a call coming back late learns it
   * expired and a replay is still refused. @default `approvalTtlMs`
   */
  approvalRetentionMs?: number;
  /**
   * How a request resolves when nobody decides before its deadline (a tool's `policy.onExpiry`
   * wins). `approve` is honoured only for `low` and `medium` risk calls; others are rejected. The
   * model is told either way.
   * @default 'reject'
   */
  onExpiry?: 'reject' | 'approve';
  /** Bound on a per-call policy function (`requiresApproval` / `riskLevel` of the call). @default 2000 */
  policyTimeoutMs?: number;
  /** Whether audit records hold the arguments of each call, not only their digest. @default false */
  auditArguments?: boolean;
  /**
   * Where the credentials of the users tools act as live, and how they are sealed. Needed only when
   * a tool declares `credentials`.
   */
  credentials?: GatewayCredentialOptions;
  /**
   * Where each call's execution record lives (written before the tool runs, ended after), and how
   * replays of a call id find what already ran.
   */
  executions?: GatewayExecutionOptions;
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

/** Options of the gateway's credentials (`createToolGateway({ credentials })`). */
export interface GatewayCredentialOptions {
  /** @default an in-memory store (one process) */
  store?: CredentialStore;
  /**
   * The secret (≥ 32 bytes) credentials are sealed with (AES-256-GCM); the same on every instance.
   * @default `KSADK_CREDENTIAL_KEY` — required, there is no random default
   */
  key?: string | Uint8Array;
  /** Retired keys that still open what they sealed. @default `KSADK_CREDENTIAL_PREVIOUS_KEYS` */
  previousKeys?: readonly (string | Uint8Array)[];
  /** How long a sign-in request stays open. @default 600000 (10 minutes) */
  requestTtlMs?: number;
  /** OAuth clients by credential id (client secrets live here, not in tool definitions). */
  providers?: Readonly<Record<string, { readonly oauth: OAuthClientConfig }>>;
}

/** Options of the gateway's execution records (`createToolGateway({ executions })`). */
export interface GatewayExecutionOptions {
  /**
   * @default an in-memory store (one process): replays hold within the process only. Share a
   * Redis or PostgreSQL store between instances for replays to hold across them.
   */
  store?: ExecutionStore;
  /**
   * Where a succeeded call's result is kept for replays: `inline` in the record (in the store),
   * or `files`, in the result store's folder of the call's account and session (the record holds
   * its `tool-results://` handle; instances must share that folder to replay each other's calls).
   * @default 'inline' for the in-memory store, 'files' for any other
   */
  results?: 'inline' | 'files';
  /** How long a record is kept, from its start. @default 86400000 (24 hours) */
  retentionMs?: number;
  /**
   * Whether each record keeps the validated arguments the model sent (secrets redacted, up to
   * 16 KiB of JSON, a preview past that) — for a console's or an operator's "what did this call
   * do". Off by default: records then hold only the arguments' digest.
   * @default false
   */
  recordArguments?: boolean;
}

/** What {@link ToolGateway.executions} lists. */
export interface ExecutionListOptions extends ApprovalListOptions {
  sessionId?: string;
  toolName?: string;
  /** Records started at or after this time. */
  since?: Date | number;
  /** Only calls with this outcome: `unknown` finds what to reconcile after a crash. */
  outcome?: ExecutionOutcome;
}

/** One call as {@link ToolGateway.execution} shows it: its record, and the result it kept. */
export interface ExecutionDetail extends ExecutionSummary {
  /** The validated arguments the model sent, when the gateway records them (`recordArguments`). */
  readonly arguments?: Record<string, unknown>;
  /** The first characters of their JSON, when they were too large to keep whole. */
  readonly argumentsPreview?: string;
  /**
   * What the call returned, when its record kept it: calls with a framework call id keep their
   * result (inline, or in the result store of their account and session) for replays.
   */
  readonly result?: ToolResult;
}

/** Per-call options, supplied by the host or adapter, never by the model. */
export interface ToolCallOptions {
  /**
   * The framework's tool call id; also names persisted outputs. A call with the id of a call that
   * already succeeded (in this account and session) returns that call's result without running;
   * with other arguments it is refused (`call_id_conflict`). @default a random id
   */
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
   * Told when the tool's `execute` starts, with a promise that settles when it has ended — which
   * can be after the call's answer: a cancelled or timed-out call answers at once, while a tool
   * that ignores its signal keeps running. For hosts that bound how much runs at once (an MCP
   * server's calls per connection). Not called for a call that never reaches its tool.
   */
  onExecution?: (settled: Promise<void>) => void;
  /**
   * A call that stopped to ask the human keeps its approval for the resumed run: `run` uses it at
   * once; `ask` presents it as an approval request again, already approved, for an adapter that
   * replays the human's earlier decision in order (LangGraph's `interrupt()`).
   * @default 'run'
   */
  continuation?: 'run' | 'ask';
}

/** Options for {@link ToolGateway.pendingApproval}. */
export interface PendingApprovalOptions extends Pick<ToolCallOptions, 'callId' | 'continuation'> {
  /** `false`: never make a request, only find one that already exists. @default true */
  create?: boolean;
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

/**
 * A standing decision made with this one: "always" for this session (or this user, across
 * sessions) — a grant for `approve`, a rejection for `reject` — until `until`, only for calls
 * whose arguments match `match`.
 */
export interface StandingDecision {
  always?: 'session' | 'user';
  /** When it ends. @default 12 hours for a session, 30 days for a user (at most 365 days) */
  until?: Date | number;
  /** Only calls whose top-level arguments meet these conditions (`{ equals }` or `{ pathPrefix }`). */
  match?: StandingGrantMatch;
}

/** Options for {@link ToolGateway.reject}. */
export interface ApprovalRejectionOptions extends StandingDecision {
  /** Why; reported back to the model. */
  reason?: string;
  /**
   * Who decides. @default the current invocation context's account and user (an absent account
   * is the empty account of single-tenant use)
   */
  principal?: ApprovalPrincipal;
}

/** Options for {@link ToolGateway.approve}. */
export interface ApprovalDecisionOptions extends ApprovalRejectionOptions {
  /**
   * Approve with these arguments instead of the model's ("edit, then approve"): the call runs with
   * exactly them (validated against the tool's schema), and the model's result says so.
   */
  args?: Record<string, unknown>;
  /** The tool, to validate edited `args` now rather than when the call runs. */
  tool?: Tool;
}

/** Who looks and how far: the principal, and a page. */
export interface ApprovalListOptions {
  /** @default the current invocation context's account and user; `{ admin: true }` sees every account */
  principal?: ApprovalPrincipal;
  /** @default 50 (at most 500) */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
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
   * equivalent grant. With `args`, the call runs with those arguments instead (edit, then
   * approve); with `always`, a standing grant lets the next calls of the tool in this session
   * (or for this user) through without asking.
   *
   * @throws {KsadkError} `approval_not_found` for an unknown, expired, rejected or used request,
   * or one that belongs to another account or user than the principal's; `invalid_arguments` for
   * edited arguments or a standing decision that is not valid; `standing_grant_not_allowed` for
   * `always` on a tool that does not allow it; `approval_quota_exceeded` when the account has too
   * many standing grants.
   */
  approve(approvalId: string, options?: ApprovalDecisionOptions): Promise<ApprovalGrant>;
  /**
   * Rejects a pending request: the next time the same call comes back it answers
   * `approval_rejected` with the reason, without running. With `always`, a standing rejection
   * refuses the next calls of the tool in this session (or for this user) without asking.
   *
   * @throws {KsadkError} `approval_not_found` for an unknown, expired or already decided request,
   * or one that belongs to another account or user than the principal's.
   */
  reject(approvalId: string, options?: ApprovalRejectionOptions): Promise<void>;
  /**
   * The stored request with its full arguments, if it exists, has not expired and belongs to
   * the principal (default: the current invocation context's account and user).
   */
  getApprovalRequest(
    approvalId: string,
    options?: { principal?: ApprovalPrincipal },
  ): Promise<ApprovalRequest | undefined>;
  /**
   * Where one request stands, as the inbox shows it — `pending`, `approved` (grant unused),
   * `rejected`, `consumed` or `expired`, who decided and when — for a host waiting on a decision
   * made elsewhere. `undefined` for an unknown id or another account's or user's request.
   */
  approvalStatus(
    approvalId: string,
    options?: { principal?: ApprovalPrincipal },
  ): Promise<ApprovalInboxItem | undefined>;
  /**
   * The approval inbox: requests newest first, paged, of the principal's account (and user) only.
   * Each item says what a human needs to decide: tool, risk and why, side effects, the full
   * arguments, the session and the tool's summary of the call.
   */
  listApprovalRequests(
    options?: ApprovalListOptions & {
      /** @default 'pending'; `'all'` for every status */
      status?: ApprovalListStatus | 'all';
      sessionId?: string;
      toolName?: string;
    },
  ): Promise<ApprovalPage<ApprovalInboxItem>>;
  /** Standing grants and rejections in force (or all, with `includeInactive`), newest first. */
  listStandingGrants(
    options?: ApprovalListOptions & {
      sessionId?: string;
      toolName?: string;
      includeInactive?: boolean;
    },
  ): Promise<ApprovalPage<StandingGrant>>;
  /**
   * Revokes a standing grant or rejection: the next call it covered asks again.
   * @throws {KsadkError} `standing_grant_not_found` for an unknown, revoked or another account's grant
   */
  revokeStandingGrant(
    id: string,
    options?: { principal?: ApprovalPrincipal; reason?: string },
  ): Promise<StandingGrant>;
  /** The audit log of every approval decision and use, newest first, of the principal's account. */
  auditLog(
    options?: ApprovalListOptions & { since?: Date | number },
  ): Promise<ApprovalPage<ApprovalAuditEntry>>;
  /**
   * Completes a `credential_required` request: `{ callbackUrl }` (the URL the user came back to
   * after signing in: its state is checked and its code exchanged, with PKCE), `{ apiKey }` or
   * `{ token }`. The credential is sealed and stored for the request's account and user; run the
   * call again and it gets it. Requests are single-use.
   *
   * @throws {KsadkError} `credential_not_found` for an unknown, used, expired or another account's or
   * user's request; `credential_refused` for a callback of another request, a denied sign-in or a
   * failed exchange (nothing is stored).
   */
  provideCredential(
    requestId: string,
    answer: CredentialAnswer,
    options?: { principal?: ApprovalPrincipal },
  ): Promise<ConnectedCredential>;
  /** The principal's connected credentials, without secrets. */
  listCredentials(options?: { principal?: ApprovalPrincipal }): Promise<ConnectedCredential[]>;
  /** Forgets one of the principal's credentials; the next call that needs it asks again. */
  revokeCredential(
    credentialId: string,
    options?: { principal?: ApprovalPrincipal },
  ): Promise<boolean>;
  /**
   * What ran: the principal's execution records newest first, paged — one per call through the
   * gateway, with its tool, argument digest, approval, times and outcome (never its arguments or
   * result). `outcome: 'unknown'` lists the calls to reconcile after a crash.
   */
  executions(options?: ExecutionListOptions): Promise<ApprovalPage<ExecutionSummary>>;
  /**
   * One execution record by its id (`exec_…`), with the result it kept — for a host's "what did
   * this call do" page. `undefined` for an unknown id or another account's (or user's) record.
   */
  execution(
    id: string,
    options?: { principal?: ApprovalPrincipal },
  ): Promise<ExecutionDetail | undefined>;
  /**
   * Whether calling `tool` in the current invocation context would need a decision, by its static
   * policy (a tool whose policy is decided per call may still let a given call through).
   */
  requiresApproval(tool: Tool): boolean;
  /**
   * Whether this very call would stop for a human, without running it — for frameworks that ask
   * before they execute (the AI SDK's and OpenAI Agents' `needsApproval`). When it would, its
   * approval request is made now (as `invoke` would make it: bound to the tool, the exact
   * arguments, the account, the session and `callId`) and its `approval_required` envelope comes
   * back; invoking the same call with the grant of that request runs it. `undefined` when the call
   * would not stop: it runs, or `invoke` answers it otherwise (invalid arguments, a standing
   * decision, a request already decided or used). Consumes nothing, never throws for what a model
   * sent. With `create: false` only a request that already exists is returned: for honouring a
   * decision that arrives with the call (a client's approval response) only for a call that was
   * really asked about — with these exact arguments, in this account and session.
   */
  pendingApproval(
    tool: Tool,
    rawArgs: unknown,
    options?: PendingApprovalOptions,
  ): Promise<ApprovalRequiredResult | undefined>;
  /** The gateway's default approval mode (before any request-scoped override). */
  readonly approvalMode: ApprovalMode;
  /** The resolved result budget. */
  readonly budget: ResultBudget;
}
