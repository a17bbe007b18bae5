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
   * Explicit override. `true` always asks (even in `full` mode); `false` never asks;
   * `undefined` lets the risk level decide.
   */
  readonly requiresApproval: boolean | undefined;
}

/** A partial policy as written in a tool definition; missing fields take their defaults. */
export type ToolPolicyInput = {
  riskLevel?: RiskLevel;
  sideEffects?: readonly string[];
  approvalScopes?: readonly string[];
  approvalExempt?: boolean;
  requiresApproval?: boolean;
};

/**
 * Fills in a policy's defaults and checks its values.
 *
 * @throws {KsadkError} `invalid_tool` when the risk level or a list is not valid.
 */
export function normalizeToolPolicy(input: ToolPolicyInput = {}, toolName = 'tool'): ToolPolicy {
  const riskLevel = (input.riskLevel ?? 'low').toLowerCase() as RiskLevel;
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
  if (input.requiresApproval !== undefined && typeof input.requiresApproval !== 'boolean') {
    throw new KsadkError('invalid_tool', `Tool "${toolName}": requiresApproval must be a boolean.`);
  }
  return Object.freeze({
    riskLevel,
    sideEffects: list(input.sideEffects, 'sideEffects'),
    approvalScopes: list(input.approvalScopes, 'approvalScopes'),
    approvalExempt: input.approvalExempt === true,
    requiresApproval: input.requiresApproval,
  });
}
