import type { ApprovalMode } from '../gateway/approval/mode.js';
import { policyRequiresApproval } from '../gateway/approval/policy.js';
import { normalizeToolPolicy, type RiskLevel } from '../tool/policy.js';
import type { JsonSchema, Tool } from '../tool/tool.js';
import type { ToolDescriptor } from './tool-descriptor.js';
import { describeTool } from './tool-descriptor.js';

/** A framework-managed tool known only by its description (KsADK cannot run it). */
export interface ExternalToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the input (`parameters` and `input_schema` are accepted too), or its properties map. */
  args?: JsonSchema;
  parameters?: JsonSchema;
  input_schema?: JsonSchema;
  group?: string;
  risk_level?: RiskLevel;
  requires_approval?: boolean;
  side_effects?: string[];
  enabled?: boolean;
  boundary?: string;
}

/** Defaults applied by `registerExternalTools`. */
export interface RegisterExternalToolsOptions {
  /** @default 'external' */
  group?: string;
  /** @default 'framework_managed_external_tool' */
  boundary?: string;
  /** For specs without one. @default 'medium' */
  riskLevel?: RiskLevel;
  /** @default true */
  enabled?: boolean;
}

/** One registration: a runnable tool, or a description only. */
export type ExternalEntry =
  | { kind: 'tool'; tool: Tool; enabled: boolean }
  | {
      kind: 'spec';
      spec: ExternalToolSpec;
      group: string;
      boundary: string;
      riskLevel: RiskLevel;
      enabled: boolean;
    };

function schemaOf(spec: ExternalToolSpec): JsonSchema {
  const raw = spec.parameters ?? spec.input_schema ?? spec.args ?? {};
  if ('properties' in raw || raw['type'] === 'object') return raw;
  return { type: 'object', properties: raw };
}

/** The descriptor of a registration. */
export function describeExternal(entry: ExternalEntry, mode: ApprovalMode): ToolDescriptor {
  if (entry.kind === 'tool') {
    return describeTool(entry.tool, mode, { execution: 'external', enabled: entry.enabled });
  }
  const { spec } = entry;
  const policy = normalizeToolPolicy(
    {
      riskLevel: spec.risk_level ?? entry.riskLevel,
      sideEffects: spec.side_effects ?? [],
      ...(spec.requires_approval !== undefined ? { requiresApproval: spec.requires_approval } : {}),
    },
    spec.name,
  );
  const parameters = schemaOf(spec);
  const properties = parameters['properties'];
  return {
    name: spec.name,
    group: spec.group ?? entry.group,
    description: spec.description ?? '',
    risk_level: policy.riskLevel,
    requires_approval: policyRequiresApproval(policy, mode),
    side_effects: [...policy.sideEffects],
    approval_scopes: [],
    approval_exempt: false,
    enabled: spec.enabled ?? entry.enabled,
    boundary: spec.boundary ?? entry.boundary,
    execution: 'external',
    callable: false,
    args:
      typeof properties === 'object' && properties !== null
        ? (properties as Record<string, unknown>)
        : {},
    parameters,
  };
}
