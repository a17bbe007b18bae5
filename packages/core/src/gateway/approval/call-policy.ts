import type { InvocationContext } from '../../context/invocation-context.js';
import {
  type CallPolicyContext,
  RISK_LEVELS,
  type RiskLevel,
  type ToolPolicy,
} from '../../tool/policy.js';
import type { Tool } from '../../tool/tool.js';
import { echoValue } from '../../util/sanitize-message.js';
import { isThenable } from '../../util/thenable.js';
import { gatewayFailure, type ToolResult } from '../results.js';
import type { ApprovalMode } from './mode.js';

/** What the policy decided for one call. */
export interface CallDecision {
  readonly needed: boolean;
  readonly riskLevel: RiskLevel;
  /** Why a human is asked, in words; `''` when no one is. */
  readonly why: string;
  /** Whether the call asks whatever the mode (`requiresApproval: true`, or a function that said so). */
  readonly alwaysAsks: boolean;
}

/** What a policy function may answer, checked. */
const MAX_REASON_CHARS = 300;

const reasonOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== ''
    ? value.trim().slice(0, MAX_REASON_CHARS)
    : undefined;

/** A readable policy answer, or `undefined` for garbage. */
function readAnswer<T>(
  value: unknown,
  key: 'requiresApproval' | 'riskLevel',
  valid: (item: unknown) => item is T,
): { value: T; reason: string | undefined } | undefined {
  if (valid(value)) return { value, reason: undefined };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const inner = Object.hasOwn(record, key) ? record[key] : undefined;
  return valid(inner) ? { value: inner, reason: reasonOf(record['reason']) } : undefined;
}

const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
const isRisk = (value: unknown): value is RiskLevel =>
  typeof value === 'string' && (RISK_LEVELS as readonly string[]).includes(value);

/** Why a call of static policy needs a decision (only asked when it does). */
function staticWhy(
  policy: ToolPolicy,
  riskLevel: RiskLevel,
  mode: ApprovalMode,
  reason?: string,
): string {
  if (policy.requiresApproval === true) return 'This tool always asks for approval.';
  const because = reason ? ` (${reason})` : '';
  if (mode === 'ask' && policy.approvalScopes.length > 0)
    return `Approval mode "ask" asks before any call with approval scopes (${policy.approvalScopes.join(', ')}); this call is ${riskLevel} risk${because}.`;
  return `This call is ${riskLevel} risk${because}; approval mode "${mode}" asks before medium risk and above.`;
}

/** The rules of `policyRequiresApproval`, for a risk level and an explicit answer decided per call. */
function decideWith(
  policy: ToolPolicy,
  mode: ApprovalMode,
  riskLevel: RiskLevel,
  explicit: { value: boolean; reason: string | undefined } | undefined,
  riskReason: string | undefined,
): CallDecision {
  const required = explicit?.value ?? policy.requiresApproval;
  if (required === true) {
    const why = explicit
      ? (explicit.reason ?? "The tool's policy asks for approval for this call.")
      : staticWhy(policy, riskLevel, mode);
    return { needed: true, riskLevel, why, alwaysAsks: true };
  }
  if (required === false || mode === 'full')
    return { needed: false, riskLevel, why: '', alwaysAsks: false };
  const needed = (mode === 'ask' && policy.approvalScopes.length > 0) || riskLevel !== 'low';
  return {
    needed,
    riskLevel,
    why: needed ? staticWhy(policy, riskLevel, mode, riskReason) : '',
    alwaysAsks: false,
  };
}

const NOT_NEEDED: Record<RiskLevel, CallDecision> = Object.fromEntries(
  RISK_LEVELS.map((level) => [
    level,
    Object.freeze({ needed: false, riskLevel: level, why: '', alwaysAsks: false }),
  ]),
) as Record<RiskLevel, CallDecision>;

/** Whether the policy exempts every call before any function is asked. */
function exempt(policy: ToolPolicy): boolean {
  if (policy.approvalExempt) return true;
  return (
    policy.approvalScopes.length > 0 &&
    policy.sideEffects.length === 0 &&
    policy.approvalScopes.every((scope) => scope === 'public_network')
  );
}

/** A refusal: the policy could not decide, so the call does not run. */
function policyFailed(tool: Tool, what: string): { refused: ToolResult } {
  return {
    refused: gatewayFailure(
      'approval_policy_failed',
      `The approval policy of ${tool.name} could not decide this call (${what}); it was not run.`,
    ),
  };
}

/** A short, clean description of what a function answered. */
function answerShape(answer: unknown): string {
  if (typeof answer === 'string') return JSON.stringify(echoValue(answer, 40));
  if (answer === null || typeof answer !== 'object') return String(answer);
  return Array.isArray(answer) ? 'a list' : 'an object without a valid answer';
}

/** {@link answerShape}, for an answer whose very inspection may throw (a revoked proxy). */
function safeShape(answer: unknown): string {
  try {
    return answerShape(answer);
  } catch {
    return 'something unreadable';
  }
}

/** Resolves `value` within `timeoutMs`, or rejects with a marker. */
const TIMED_OUT = Symbol('timed out');
function within<T>(value: T | PromiseLike<T>, timeoutMs: number): Promise<T> {
  if (!isThenable(value)) return Promise.resolve(value as T);
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    Promise.resolve(value as PromiseLike<T>),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(TIMED_OUT), timeoutMs);
      timer.unref?.();
    }),
  ]).finally(() => clearTimeout(timer));
}

/** One call's facts a policy function is given. */
export interface PolicyCall {
  readonly tool: Tool;
  readonly args: Record<string, unknown>;
  readonly callId: string;
  readonly invocation: InvocationContext;
  readonly mode: ApprovalMode;
}

/**
 * Decides one call: whether it needs a human, at which risk, and why. A static policy is decided
 * synchronously; per-call functions are called once each, within `timeoutMs`. A function that
 * throws, hangs or answers something unreadable refuses the call — never lets it pass.
 */
export function decideCall(
  call: PolicyCall,
  timeoutMs: number,
): CallDecision | { refused: ToolResult } | Promise<CallDecision | { refused: ToolResult }> {
  const { policy } = call.tool;
  if (exempt(policy)) return NOT_NEEDED[policy.riskLevel];
  const perCall = policy.perCall;
  if (!perCall) {
    const decision = decideWith(policy, call.mode, policy.riskLevel, undefined, undefined);
    return decision.needed ? decision : NOT_NEEDED[policy.riskLevel];
  }
  return decidePerCall(call, timeoutMs);
}

async function decidePerCall(
  call: PolicyCall,
  timeoutMs: number,
): Promise<CallDecision | { refused: ToolResult }> {
  const { tool, args, mode } = call;
  const { policy } = tool;
  const context: CallPolicyContext = Object.freeze({
    toolName: tool.name,
    callId: call.callId,
    invocation: call.invocation,
    mode,
  });
  // Each function sees its own copy: what it changes never reaches the tool or the digest.
  const ask = async <T>(
    fn: ((a: Record<string, unknown>, c: CallPolicyContext) => unknown) | undefined,
    key: 'requiresApproval' | 'riskLevel',
    valid: (item: unknown) => item is T,
  ): Promise<{ value: T; reason: string | undefined } | undefined | { failed: string }> => {
    if (!fn) return undefined;
    let answer: unknown;
    try {
      answer = await within(fn(structuredClone(args), context), timeoutMs);
    } catch (error) {
      return {
        failed: error === TIMED_OUT ? `it took longer than ${timeoutMs} ms` : 'it threw an error',
      };
    }
    let read: { value: T; reason: string | undefined } | undefined;
    try {
      read = readAnswer(answer, key, valid);
    } catch {
      // A getter or a proxy trap that throws is an answer nobody can read.
      return { failed: `its ${key} function answered something unreadable` };
    }
    return read ?? { failed: `its ${key} function answered ${safeShape(answer)}` };
  };
  const risk = await ask(policy.perCall?.riskLevel, 'riskLevel', isRisk);
  if (risk && 'failed' in risk) return policyFailed(tool, risk.failed);
  const explicit = await ask(policy.perCall?.requiresApproval, 'requiresApproval', isBoolean);
  if (explicit && 'failed' in explicit) return policyFailed(tool, explicit.failed);
  return decideWith(policy, mode, risk?.value ?? policy.riskLevel, explicit, risk?.reason);
}
