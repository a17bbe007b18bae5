import type { Tool as KsadkTool } from '@ksadk/core';
import { toolJsonSchema } from '@ksadk/core/schema';
import type { Tool as McpTool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/** Side effects that change or remove what was there, or run code: never "additive only". */
const DESTRUCTIVE = /delete|remove|execution|command|edit|overwrite|write/;

/** Low risk with no side effects: what `--read-only` serves. */
export const isReadOnly = (tool: KsadkTool): boolean =>
  tool.policy.riskLevel === 'low' && tool.policy.sideEffects.length === 0;

/**
 * The MCP hints a tool's policy gives: read-only when it is low risk with no side effects;
 * destructive when it deletes, edits, overwrites or runs code (or is high or critical risk);
 * open-world when it reaches the public network. Hints are for the client's UI only: the gateway
 * decides what runs.
 */
export function annotationsOf(tool: KsadkTool): ToolAnnotations {
  const { riskLevel, sideEffects, approvalScopes, idempotent } = tool.policy;
  const readOnly = isReadOnly(tool);
  const openWorld = [...approvalScopes, ...sideEffects].some((label) => /network|web/.test(label));
  return {
    readOnlyHint: readOnly,
    ...(readOnly
      ? {}
      : {
          destructiveHint:
            riskLevel === 'high' ||
            riskLevel === 'critical' ||
            sideEffects.some((label) => DESTRUCTIVE.test(label)),
          idempotentHint: idempotent,
        }),
    openWorldHint: openWorld,
  };
}

/** A KsADK tool as MCP lists it: its name, description, input JSON Schema and policy hints. */
export function mcpToolOf(tool: KsadkTool): McpTool {
  const { $schema: _dialect, ...schema } = toolJsonSchema(tool) as Record<string, unknown>;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: { ...schema, type: 'object' } as McpTool['inputSchema'],
    annotations: annotationsOf(tool),
  };
}
