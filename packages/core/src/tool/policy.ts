import type { InvocationContext } from '../context/invocation-context.js';
import { KsadkError } from '../errors/ksadk-error.js';

/** How dangerous a tool call is. Medium and above need approval in the default `risk` mode. */
export type RiskLevel = 'low' | 'medium' | 'high' | 'critical';

/** The risk levels, lowest first. */
export const RISK_LEVELS: readonly RiskLevel[] = ['low', 'medium', 'high', 'critical'];

/**
 * What a tool may do, which the gateway uses to decide whether a call needs a human decision.
 * See `docs/approvals.md` for the decision rules.
 */
export interface ToolPolicy {
  /** @default 'low' */
  readonly riskLevel: RiskLevel;
  /** Labels such as `workspace_write` or `sandbox_command_execution`. @default [] */
  readonly sideEffects: readonly string[];
  /**
   * Operation classes that may need a decision in `ask` mode. `['public_network']` with no
   * side effects marks a read-only web tool, which never needs approval. @default []
   */
  readonly approvalScopes: readonly string[];
  /** Inherently safe: never needs approval, whatever the mode. @default false */
  readonly approvalExempt: boolean;
  /**
   * Running it twice does what running it once does: a call stopped mid-way (timed out, aborted)
   * may simply be tried again. Without it, a stopped call of a tool with side effects (risk above
   * low, or declared side effects) answers `outcome_unknown`. @default false
   */
  readonly idempotent: boolean;
  /**
   * Explicit override. `true` always asks (even in `full` mode); `false` never asks;
   * `undefined` lets the risk level decide.
   */
  readonly requiresApproval: boolean | undefined;
  /**
   * Parts of the policy decided per call, from the validated arguments: the gateway calls them
   * once per call, bounded in time. Absent for a static policy.
   */
  readonly perCall?: PerCallPolicy;
  /**
   * Whether a standing grant ("always allow this tool for this session") may cover a call that
   * always asks (`requiresApproval: true`) or is of `critical` risk. @default false
   */
  readonly allowStandingGrants: boolean;
  /**
   * How a request of this tool resolves when nobody decides before it expires. `approve` is honoured
   * only for calls of `low` or `medium` risk; others are rejected. @default the gateway's `onExpiry`
   */
  readonly onExpiry: 'reject' | 'approve' | undefined;
}

/** What a per-call policy function is given besides the arguments. */
export interface CallPolicyContext {
  readonly toolName: string;
  /** The framework's tool call id, or a generated one. */
  readonly callId: string;
  /** The invocation context of the call (account, user, session, metadata…). */
  readonly invocation: InvocationContext;
  /** The approval mode in effect for the call. */
  readonly mode: 'ask' | 'risk' | 'full';
}

/** A policy answer with the reason a human is shown. */
export type WithReason<K extends string, T> = { readonly [key in K]: T } & {
  readonly reason?: string;
};

/** Decides whether one call needs approval: `true` asks even in `full` mode, as a static `true` does. */
export type RequiresApprovalFunction = (
  args: Record<string, unknown>,
  context: CallPolicyContext,
) =>
  | boolean
  | WithReason<'requiresApproval', boolean>
  | Promise<boolean | WithReason<'requiresApproval', boolean>>;

/** Decides one call's risk level. */
export type RiskLevelFunction = (
  args: Record<string, unknown>,
  context: CallPolicyContext,
) =>
  | RiskLevel
  | WithReason<'riskLevel', RiskLevel>
  | Promise<RiskLevel | WithReason<'riskLevel', RiskLevel>>;

/** The per-call parts of a policy. */
export interface PerCallPolicy {
  readonly requiresApproval?: RequiresApprovalFunction;
  readonly riskLevel?: RiskLevelFunction;
}

/** A partial policy as written in a tool definition; missing fields take their defaults. */
export type ToolPolicyInput = {
  /**
   * The risk level, or a function of the call that decides it (the static level shown in
   * catalogues is then `medium`).
   * @default 'low'
   */
  riskLevel?: RiskLevel | RiskLevelFunction;
  sideEffects?: readonly string[];
  approvalScopes?: readonly string[];
  approvalExempt?: boolean;
  /** See {@link ToolPolicy.idempotent}. @default false */
  idempotent?: boolean;
  /** `true` always asks, `false` never does, or a function of the call that decides. */
  requiresApproval?: boolean | RequiresApprovalFunction;
  /** See {@link ToolPolicy.allowStandingGrants}. @default false */
  allowStandingGrants?: boolean;
  /** See {@link ToolPolicy.onExpiry}. */
  onExpiry?: 'reject' | 'approve';
};

/**
 * Fills in a policy's defaults and checks its values.
 *
 * @throws {KsadkError} `invalid_tool` when the risk level or a list is not valid.
 */
export function normalizeToolPolicy(input: ToolPolicyInput = {}, toolName = 'tool'): ToolPolicy {
  const riskFunction = typeof input.riskLevel === 'function' ? input.riskLevel : undefined;
  const approvalFunction =
    typeof input.requiresApproval === 'function' ? input.requiresApproval : undefined;
  const riskLevel = (
    riskFunction ? 'medium' : ((input.riskLevel as string | undefined) ?? 'low')
  ).toLowerCase() as RiskLevel;
  if (!RISK_LEVELS.includes(riskLevel)) {
    throw new KsadkError(
      'invalid_tool',
      `Tool "${toolName}": riskLevel must be one of ${RISK_LEVELS.join(', ')} (got "${String(input.riskLevel)}").`,
    );
  }
  const list = (value: readonly string[] | undefined, field: string): readonly string[] => {
    if (value === undefined) return Object.freeze([]);
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
      throw new KsadkError(
        'invalid_tool',
        `Tool "${toolName}": ${field} must be a list of non-empty strings.`,
      );
    }
    return Object.freeze([...value]);
  };
  if (
    input.requiresApproval !== undefined &&
    !approvalFunction &&
    typeof input.requiresApproval !== 'boolean'
  ) {
    throw new KsadkError(
      'invalid_tool',
      `Tool "${toolName}": requiresApproval must be a boolean or a function of the call.`,
    );
  }
  if (input.onExpiry !== undefined && input.onExpiry !== 'reject' && input.onExpiry !== 'approve') {
    throw new KsadkError(
      'invalid_tool',
      `Tool "${toolName}": onExpiry must be 'reject' or 'approve'.`,
    );
  }
  const perCall =
    riskFunction || approvalFunction
      ? Object.freeze({
          ...(approvalFunction ? { requiresApproval: approvalFunction } : {}),
          ...(riskFunction ? { riskLevel: riskFunction } : {}),
        })
      : undefined;
  return Object.freeze({
    riskLevel,
    sideEffects: list(input.sideEffects, 'sideEffects'),
    approvalScopes: list(input.approvalScopes, 'approvalScopes'),
    approvalExempt: input.approvalExempt === true,
    idempotent: input.idempotent === true,
    requiresApproval: approvalFunction
      ? undefined
      : (input.requiresApproval as boolean | undefined),
    ...(perCall ? { perCall } : {}),
    allowStandingGrants: input.allowStandingGrants === true,
    onExpiry: input.onExpiry,
  });
}

/**
 * Whether a call stopped mid-way may have changed something: the tool has side effects (risk above
 * low, or side effects declared) and is not declared idempotent.
 */
export function outcomeMayBeUnknown(policy: ToolPolicy): boolean {
  return !policy.idempotent && (policy.riskLevel !== 'low' || policy.sideEffects.length > 0);
}
