import type { ToolPolicy } from '../../tool/policy.js';
import type { ApprovalMode } from './mode.js';

/**
 * Whether a call under `policy` needs — or, for a policy decided per call, may need — a human
 * decision in `mode`. Rules, in order:
 *
 * 1. `approvalExempt`, or a read-only public-network policy (approval scopes only
 *    `public_network`, no side effects) → no.
 * 2. `requiresApproval: true`, or decided per call by a function → yes, in every mode (an
 *    "always ask" tool, or one that may ask for a given call: the gateway asks the function).
 * 3. `requiresApproval: false` → no.
 * 4. mode `full` → no.
 * 5. mode `ask` with any approval scope → yes.
 * 6. otherwise → yes for `medium`, `high` and `critical` risk.
 */
export function policyRequiresApproval(policy: ToolPolicy, mode: ApprovalMode): boolean {
  if (policy.approvalExempt) return false;
  if (
    policy.approvalScopes.length > 0 &&
    policy.sideEffects.length === 0 &&
    policy.approvalScopes.every((scope) => scope === 'public_network')
  ) {
    return false;
  }
  if (policy.perCall?.requiresApproval) return true;
  if (policy.requiresApproval !== undefined) return policy.requiresApproval;
  if (mode === 'full') return false;
  if (mode === 'ask' && policy.approvalScopes.length > 0) return true;
  return policy.riskLevel !== 'low';
}
