import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  budgetInRoot,
  budgetTextFields,
  budgetToolOutput,
  narrowBudget,
  type ResultBudget,
  type ResultBudgetOptions,
  resolveResultBudget,
} from '../budget/result-budget.js';
import {
  getInvocationContextOrEmpty,
  type InvocationContext,
} from '../context/invocation-context.js';
import { KsadkError } from '../errors/ksadk-error.js';
import type { Tool, ToolExecutionContext } from '../tool/tool.js';
import {
  resolveWorkspaceRoot,
  type WorkspaceRootOption,
} from '../toolsets/workspace/workspace-root.js';
import { canonicalDigest } from '../util/canonical-json.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import {
  type ApprovalGrant,
  resolveApprovalSecret,
  signGrant,
  verifyGrant,
} from './approval-grant.js';
import { type ApprovalMode, approvalModeFromEnv, parseApprovalMode } from './approval-mode.js';
import {
  type ApprovalRecord,
  type ApprovalStore,
  createInMemoryApprovalStore,
} from './approval-store.js';
import { policyRequiresApproval } from './decide-approval.js';
import type {
  ApprovalRejectedResult,
  ApprovalRequest,
  ApprovalRequiredResult,
  ToolErrorResult,
  ToolResult,
} from './results.js';
import { validateToolInput, validateZodInput } from './validate-input.js';

/** How a call ended, as reported to {@link ToolGatewayHooks.onToolEnd}. */
export type ToolCallOutcome =
  | 'ok'
  | 'error'
  | 'invalid_arguments'
  | 'approval_required'
  | 'approval_rejected'
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
  /** Where approval requests live. @default an in-memory store */
  approvalStore?: ApprovalStore;
  /** HMAC secret for grants (≥ 16 bytes). @default `KSADK_APPROVAL_SECRET`, else random per process */
  approvalSecret?: string | Uint8Array;
  /** How long a request and its grant stay valid. @default 900000 (15 minutes) */
  approvalTtlMs?: number;
  /** Per-call timeout when the tool sets none. @default 120000 */
  timeoutMs?: number;
  /** Result budget (environment variables cap it). */
  budget?: ResultBudgetOptions;
  /**
   * The workspace root (or a function of the invocation context, as given to the workspace
   * tools): large outputs of every tool are then saved inside it, where `read_workspace_file`
   * can read them back. @default the budget's own directory
   */
  workspaceRoot?: WorkspaceRootOption;
  /** Observers. */
  hooks?: ToolGatewayHooks;
  /** The environment to read `KSADK_*` variables from. @default process.env */
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
}

/** Options for {@link ToolGateway.approve} and {@link ToolGateway.reject}. */
export interface ApprovalDecisionOptions {
  /** Why; reported back to the model on rejection. */
  reason?: string;
}

/** The one door every tool call goes through. */
export interface ToolGateway {
  /**
   * Runs a call: validates the arguments, decides whether it needs approval, executes with a
   * timeout, budgets the result. Never throws for tool failures: they come back as
   * `{ ok: false, error_type, error_message }`.
   */
  invoke(tool: Tool, rawArgs: unknown, options?: ToolCallOptions): Promise<ToolResult>;
  /**
   * Approves a pending request and returns a single-use grant bound to its tool, arguments,
   * account, session and expiry. Approving an already approved, unused request returns an
   * equivalent grant.
   *
   * @throws {KsadkError} `approval_not_found` for an unknown, expired, rejected or used request.
   */
  approve(approvalId: string, options?: ApprovalDecisionOptions): Promise<ApprovalGrant>;
  /**
   * Rejects a pending request: the next time the same call comes back it answers
   * `approval_rejected` with the reason, without running.
   *
   * @throws {KsadkError} `approval_not_found` for an unknown, expired or already decided request.
   */
  reject(approvalId: string, options?: ApprovalDecisionOptions): Promise<void>;
  /** The stored request, if it exists and has not expired. */
  getApprovalRequest(approvalId: string): Promise<ApprovalRequest | undefined>;
  /** Whether calling `tool` in the current invocation context would need a decision. */
  requiresApproval(tool: Tool): boolean;
  /** The gateway's default approval mode (before any request-scoped override). */
  readonly approvalMode: ApprovalMode;
  /** The resolved result budget. */
  readonly budget: ResultBudget;
}

const DEFAULT_TTL_MS = 15 * 60 * 1000;
// Generated call ids: a random per-process prefix and a counter (unique, and cheap on the hot path).
const CALL_ID_PREFIX = `call_${randomUUID().slice(0, 8)}`;
let callCounter = 0;
const nextCallId = (): string => {
  callCounter += 1;
  return `${CALL_ID_PREFIX}_${callCounter.toString(36)}`;
};
const DEFAULT_TIMEOUT_MS = 120_000;
const RESULT_OVERHEAD_CHARS = 2_000;
const TIMEOUT = Symbol('timeout');
const ABORTED = Symbol('aborted');

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Model arguments as an object, with any `approval` key dropped. JSON strings are parsed. */
function normalizeArgs(rawArgs: unknown): Record<string, unknown> | undefined {
  let args = rawArgs;
  if (args === undefined || args === null || args === '') return {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  if (!isPlainObject(args)) return undefined;
  if (!('approval' in args)) return args;
  const { approval: _ignored, ...rest } = args;
  return rest;
}

function toResult(value: unknown): ToolResult {
  if (isPlainObject(value) && typeof value['ok'] === 'boolean') return value as ToolResult;
  if (isPlainObject(value)) return { ok: true, ...value };
  if (value === undefined || value === null) return { ok: true };
  return { ok: true, result: value };
}

/** Counts string characters in `value`, stopping once `limit` is passed. */
function exceeds(value: unknown, limit: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') total += item.length + 2;
    else if (typeof item === 'number' || typeof item === 'boolean') total += 8;
    else if (Array.isArray(item)) {
      total += item.length;
      for (const element of item) stack.push(element);
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, element] of Object.entries(item)) {
        total += key.length + 4;
        stack.push(element);
      }
    }
    if (total > limit) return true;
  }
  return false;
}

/**
 * Creates the tool gateway: the one door through which every tool call reaches a tool.
 *
 * @throws {KsadkError} `invalid_config` for an unknown approval mode (option or
 * `KSADK_TOOL_APPROVAL_MODE`), a short secret or a bad budget.
 *
 * @example
 * ```ts
 * const gateway = createToolGateway();
 * const first = await gateway.invoke(writeNote, { title: 'a', body: 'b' });
 * if (isApprovalRequired(first)) {
 *   const grant = await gateway.approve(first.approval_request.id); // the host decides
 *   const done = await gateway.invoke(writeNote, { title: 'a', body: 'b' }, { approval: grant });
 * }
 * ```
 */
export function createToolGateway(options: ToolGatewayOptions = {}): ToolGateway {
  const env = options.env ?? process.env;
  const defaultMode =
    options.approvalMode !== undefined
      ? parseApprovalMode(options.approvalMode, 'createToolGateway({ approvalMode })')
      : approvalModeFromEnv(env);
  const store = options.approvalStore ?? createInMemoryApprovalStore();
  const secret = resolveApprovalSecret(options.approvalSecret, env);
  const ttlMs = options.approvalTtlMs ?? DEFAULT_TTL_MS;
  if (!(ttlMs > 0))
    throw new KsadkError('invalid_config', 'approvalTtlMs must be a positive number.');
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(defaultTimeoutMs > 0))
    throw new KsadkError('invalid_config', 'timeoutMs must be a positive number.');
  const budget = resolveResultBudget(options.budget, env);
  const baseBudget = budget;
  const hooks = options.hooks ?? {};

  const callHook = <E>(name: 'onToolStart' | 'onToolEnd', event: E): void => {
    const hook = hooks[name] as ((event: E) => void) | undefined;
    if (!hook) return;
    try {
      hook(event);
    } catch (error) {
      reportHookError(error, name);
    }
  };
  const reportHookError = (error: unknown, hook: string): void => {
    if (hooks.onHookError) hooks.onHookError(error, hook);
    else process.emitWarning(`KsADK gateway hook ${hook} threw: ${modelSafeErrorMessage(error)}`);
  };

  const modeFor = (context: InvocationContext): ApprovalMode => context.approvalMode ?? defaultMode;

  const bindingKeyOf = (
    toolName: string,
    digest: string,
    account: string,
    session: string,
  ): string =>
    createHash('sha256')
      .update(JSON.stringify([toolName, digest, account, session]))
      .digest('hex');

  const requestOf = (record: ApprovalRecord): ApprovalRequest => ({
    id: record.id,
    tool_name: record.toolName,
    risk_level: record.riskLevel,
    side_effects: [...record.sideEffects],
    arguments: structuredClone(record.arguments) as Record<string, unknown>,
    args_digest: record.argsDigest,
    expires_at: new Date(record.expiresAt).toISOString(),
  });

  const grantOf = (record: ApprovalRecord): ApprovalGrant => ({
    approvalId: record.id,
    toolName: record.toolName,
    expiresAt: new Date(record.expiresAt).toISOString(),
    token: signGrant(
      {
        id: record.id,
        tool: record.toolName,
        digest: record.argsDigest,
        account: record.accountId,
        session: record.sessionId,
        exp: record.expiresAt,
      },
      secret,
    ),
  });

  /**
   * Decides a gated call: `'granted'` when a valid grant for exactly this call was presented
   * and consumed, otherwise the envelope to return.
   */
  const gate = async (
    tool: Tool,
    args: Record<string, unknown>,
    context: InvocationContext,
    approval: ApprovalGrant | string | undefined,
  ): Promise<'granted' | ApprovalRequiredResult | ApprovalRejectedResult> => {
    const now = Date.now();
    const digest = canonicalDigest(args);
    const account = context.accountId ?? '';
    const session = context.sessionId ?? '';
    if (approval !== undefined) {
      const token = typeof approval === 'string' ? approval : approval?.token;
      const payload = verifyGrant(token, secret);
      if (
        payload &&
        payload.tool === tool.name &&
        payload.digest === digest &&
        payload.account === account &&
        payload.session === session &&
        payload.exp > now &&
        (await store.transition(payload.id, 'approved', 'consumed'))
      ) {
        return 'granted';
      }
    }
    const bindingKey = bindingKeyOf(tool.name, digest, account, session);
    let record = await store.findOpen(bindingKey, now);
    if (record?.status === 'rejected') {
      const consumed = await store.transition(record.id, 'rejected', 'consumed');
      if (consumed) {
        const reason = consumed.reason ?? '';
        return {
          ok: false,
          type: 'approval_rejected',
          approval_required: false,
          error_type: 'approval_rejected',
          error_message: `The user rejected this call to ${tool.name}${reason ? `: ${reason}` : '.'} Do not retry it unchanged.`,
          tool_name: tool.name,
          risk_level: tool.policy.riskLevel,
          reason,
        };
      }
      record = undefined;
    }
    if (!record) {
      record = Object.freeze({
        id: `appr_${randomBytes(16).toString('hex')}`,
        bindingKey,
        toolName: tool.name,
        argsDigest: digest,
        arguments: structuredClone(args),
        accountId: account,
        sessionId: session,
        riskLevel: tool.policy.riskLevel,
        sideEffects: tool.policy.sideEffects,
        status: 'pending',
        createdAt: now,
        expiresAt: now + ttlMs,
      } satisfies ApprovalRecord);
      await store.create(record);
      if (hooks.onApprovalRequested) {
        try {
          hooks.onApprovalRequested(requestOf(record), context);
        } catch (error) {
          reportHookError(error, 'onApprovalRequested');
        }
      }
    }
    return {
      ok: false,
      type: 'approval_required',
      approval_required: true,
      error_type: 'approval_required',
      error_message: `Calling ${tool.name} needs the user's approval. The request was sent to the user; do not retry or work around it, wait for their decision.`,
      approval_request: requestOf(record),
    };
  };

  const aborted = (tool: Tool): ToolResult => ({
    ok: false,
    error_type: 'tool_aborted',
    error_message: `The call to ${tool.name} was cancelled.`,
  });

  const failed = (error: unknown): ToolResult =>
    ({
      ok: false,
      error_type: KsadkError.isInstance(error) ? error.code : 'tool_error',
      error_message: modelSafeErrorMessage(error),
    }) satisfies ToolErrorResult;

  const execute = async (
    tool: Tool,
    args: Record<string, unknown>,
    context: InvocationContext,
    callId: string,
    options: ToolCallOptions,
  ): Promise<ToolResult> => {
    const outer = options.signal;
    if (outer?.aborted) return aborted(tool);
    // The abort controller is made on first use: a synchronous tool that never looks at its
    // signal costs no controller, listener or timer.
    let controller: AbortController | undefined;
    const controllerOf = (): AbortController => {
      controller ??= new AbortController();
      return controller;
    };
    const executionContext: ToolExecutionContext = {
      toolName: tool.name,
      callId,
      get signal() {
        return controllerOf().signal;
      },
      invocation: context,
      gateway,
      approval: options.approval,
    };
    let pending: unknown;
    try {
      pending = (
        tool.execute as (input: Record<string, unknown>, ctx: ToolExecutionContext) => unknown
      )(args, executionContext);
    } catch (error) {
      return failed(error);
    }
    if (
      !(pending instanceof Promise) &&
      !(typeof pending === 'object' && pending !== null && 'then' in pending)
    ) {
      return shapeResult(tool, toResult(pending), callId, context);
    }
    const signal = controllerOf().signal;
    const forwardAbort = (): void => controller?.abort(outer?.reason);
    outer?.addEventListener('abort', forwardAbort, { once: true });
    const timeoutMs = options.timeoutMs ?? tool.timeoutMs ?? defaultTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      const stopped = new Promise<typeof TIMEOUT | typeof ABORTED>((resolve) => {
        timer = setTimeout(() => {
          resolve(TIMEOUT);
          controller?.abort(new Error('timeout'));
        }, timeoutMs);
        signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
      });
      const value = await Promise.race([pending, stopped]);
      if (value === TIMEOUT) {
        return {
          ok: false,
          error_type: 'tool_timeout',
          error_message: `${tool.name} did not finish within ${timeoutMs} ms and was stopped.`,
        };
      }
      if (value === ABORTED) return aborted(tool);
      return shapeResult(tool, toResult(value), callId, context);
    } catch (error) {
      return signal.aborted ? aborted(tool) : failed(error);
    } finally {
      if (timer) clearTimeout(timer);
      outer?.removeEventListener('abort', forwardAbort);
    }
  };

  const shapeResult = (
    tool: Tool,
    result: ToolResult,
    callId: string,
    context: InvocationContext,
  ): ToolResult | Promise<ToolResult> => {
    if (!tool.resultBudget && !exceeds(result, budget.maxChars + RESULT_OVERHEAD_CHARS))
      return result;
    return budgetResult(tool, result, callId, context);
  };

  const budgetResult = async (
    tool: Tool,
    result: ToolResult,
    callId: string,
    context: InvocationContext,
  ): Promise<ToolResult> => {
    let shaped = result;
    const budget = options.workspaceRoot
      ? budgetInRoot(baseBudget, await resolveWorkspaceRoot(options.workspaceRoot, context))
      : baseBudget;
    const toolBudget = tool.resultBudget;
    const fieldLimit = toolBudget
      ? Math.min(narrowBudget(budget, toolBudget).maxChars, budget.persistThresholdChars)
      : 0;
    const oversized =
      toolBudget?.fields.some((field) => {
        const value = result[field];
        return (
          value !== undefined &&
          value !== null &&
          (typeof value === 'string' ? value.length : JSON.stringify(value).length) > fieldLimit
        );
      }) ?? false;
    if (toolBudget && oversized) {
      shaped = (await budgetTextFields(shaped, tool.name, toolBudget.fields, {
        budget: narrowBudget(budget, toolBudget),
        metadata: { toolCallId: callId },
        context,
      })) as ToolResult;
    }
    // Budgeted fields are already within limits; allow their bookkeeping some room.
    if (!exceeds(shaped, budget.maxChars + RESULT_OVERHEAD_CHARS)) return shaped;
    const whole = await budgetToolOutput(tool.name, 'result', shaped, {
      budget,
      metadata: { toolCallId: callId },
      context,
    });
    return {
      ok: shaped.ok,
      ...(typeof shaped['error_type'] === 'string' ? { error_type: shaped['error_type'] } : {}),
      result_truncated: true,
      result_preview: whole.value,
      result_original_chars: whole.original_chars,
      ...(whole.persisted ? { persisted_outputs: { result: whole.persisted } } : {}),
    };
  };

  const outcomeOf = (result: ToolResult): ToolCallOutcome => {
    if (result.ok) return 'ok';
    switch (result['error_type']) {
      case 'invalid_arguments':
      case 'approval_required':
      case 'approval_rejected':
        return result['error_type'];
      case 'tool_timeout':
        return 'timeout';
      case 'tool_aborted':
        return 'aborted';
      default:
        return 'error';
    }
  };

  const run = async (
    tool: Tool,
    rawArgs: unknown,
    options: ToolCallOptions,
    callId: string,
  ): Promise<ToolResult> => {
    const context = getInvocationContextOrEmpty();
    const args = normalizeArgs(rawArgs);
    if (!args) {
      return {
        ok: false,
        error_type: 'invalid_arguments',
        error_message: `Arguments for ${tool.name} must be a JSON object.`,
        issues: [{ path: '', message: 'Expected a JSON object.' }],
      };
    }
    const validation =
      tool.kind === 'zod'
        ? validateZodInput(tool.input, args)
        : await validateToolInput(tool, args);
    if (!validation.ok) {
      const first = validation.issues[0];
      return {
        ok: false,
        error_type: 'invalid_arguments',
        error_message: `Invalid arguments for ${tool.name}${first ? `: ${first.path ? `${first.path}: ` : ''}${first.message}` : '.'}`,
        issues: validation.issues,
      };
    }
    if (policyRequiresApproval(tool.policy, modeFor(context))) {
      const decision = await gate(tool, validation.value, context, options.approval);
      if (decision !== 'granted') return decision as unknown as ToolResult;
    }
    return execute(tool, validation.value, context, callId, options);
  };

  const gateway: ToolGateway = {
    approvalMode: defaultMode,
    budget,

    async invoke(tool, rawArgs, options = {}) {
      const callId = options.callId ?? nextCallId();
      const observed = hooks.onToolStart !== undefined || hooks.onToolEnd !== undefined;
      const startedAt = observed ? performance.now() : 0;
      const invocationId = observed ? getInvocationContextOrEmpty().invocationId : undefined;
      if (hooks.onToolStart) callHook('onToolStart', { toolName: tool.name, callId, invocationId });
      const result = await run(tool, rawArgs, options, callId);
      if (hooks.onToolEnd) {
        const outcome = outcomeOf(result);
        callHook('onToolEnd', {
          toolName: tool.name,
          callId,
          invocationId,
          durationMs: performance.now() - startedAt,
          outcome,
          errorType: outcome === 'ok' ? undefined : (result['error_type'] as string | undefined),
        });
      }
      return result;
    },

    async approve(approvalId, decision = {}) {
      const now = Date.now();
      const record = await store.get(approvalId);
      if (record && record.expiresAt > now) {
        if (record.status === 'approved') return grantOf(record);
        const approved = await store.transition(approvalId, 'pending', 'approved', {
          decidedAt: now,
          ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
        });
        if (approved) return grantOf(approved);
      }
      throw new KsadkError(
        'approval_not_found',
        `Approval request ${approvalId} is unknown, expired, already rejected or already used.`,
        { details: { approvalId } },
      );
    },

    async reject(approvalId, decision = {}) {
      const now = Date.now();
      const record = await store.get(approvalId);
      const rejected =
        record && record.expiresAt > now
          ? await store.transition(approvalId, 'pending', 'rejected', {
              decidedAt: now,
              reason: decision.reason ?? '',
            })
          : undefined;
      if (!rejected) {
        throw new KsadkError(
          'approval_not_found',
          `Approval request ${approvalId} is unknown, expired or already decided.`,
          { details: { approvalId } },
        );
      }
    },

    async getApprovalRequest(approvalId) {
      const record = await store.get(approvalId);
      return record && record.expiresAt > Date.now() ? requestOf(record) : undefined;
    },

    requiresApproval(tool) {
      return policyRequiresApproval(tool.policy, modeFor(getInvocationContextOrEmpty()));
    },
  };
  return gateway;
}
