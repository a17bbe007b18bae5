import type { ApprovalMode } from '../gateway/approval/mode.js';
import { policyRequiresApproval } from '../gateway/approval/policy.js';
import { toolJsonSchema } from '../schema/canonical-schema.js';
import type { RiskLevel } from '../tool/policy.js';
import type { JsonSchema, Tool } from '../tool/tool.js';

/** What the catalogue says about a tool: for `describe`, `list`, `tool_search` and UIs. */
export interface ToolDescriptor {
  name: string;
  group: string;
  description: string;
  risk_level: RiskLevel;
  /** Whether a call would need approval in the mode the descriptor was made for. */
  requires_approval: boolean;
  side_effects: string[];
  approval_scopes: string[];
  approval_exempt: boolean;
  enabled: boolean;
  /** Where the tool acts. */
  boundary?: string | undefined;
  /** `builtin`, or `external` for tools registered from outside. */
  execution: 'builtin' | 'external';
  /** Whether the dispatcher can run it (descriptor-only registrations cannot). */
  callable: boolean;
  /** The input's `properties` map (argument name → JSON Schema). */
  args: Record<string, unknown>;
  /** The full input JSON Schema. */
  parameters: JsonSchema;
  [extra: string]: unknown;
}

/** Describes a tool for a mode. */
export function describeTool(
  tool: Tool,
  mode: ApprovalMode,
  extra: { execution?: 'builtin' | 'external'; enabled?: boolean; [key: string]: unknown } = {},
): ToolDescriptor {
  const { $schema: _dialect, ...parameters } = toolJsonSchema(tool);
  const properties = parameters['properties'];
  return {
    name: tool.name,
    group: tool.group,
    description: tool.description,
    risk_level: tool.policy.riskLevel,
    requires_approval: policyRequiresApproval(tool.policy, mode),
    side_effects: [...tool.policy.sideEffects],
    approval_scopes: [...tool.policy.approvalScopes],
    approval_exempt: tool.policy.approvalExempt,
    enabled: true,
    boundary: tool.boundary,
    execution: 'builtin',
    callable: true,
    args:
      typeof properties === 'object' && properties !== null
        ? (properties as Record<string, unknown>)
        : {},
    parameters,
    ...extra,
  };
}
