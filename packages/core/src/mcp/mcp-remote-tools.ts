import type { CredentialSpec } from '../credentials/credential-spec.js';
import type { ToolResult } from '../gateway/results.js';
import { probeToolSchema } from '../schema/probe-tool-schema.js';
import type { ToolNameRegistry } from '../schema/tool-names.js';
import { defineJsonSchemaTool } from '../tool/define-tool.js';
import type { RiskLevel } from '../tool/policy.js';
import type { Tool, ToolExecutionContext } from '../tool/tool.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import type { McpServerConfig } from './mcp-config.js';
import { MCP_CONTENT_OVERFLOW_FIELD } from './mcp-content.js';
import type { RemoteTool } from './mcp-tool-listing.js';

/** A tool of the server that could not be offered, and why. */
export interface McpToolProblem {
  readonly server: string;
  readonly tool: string;
  readonly message: string;
}

/** What turning a server's listed tools into KsADK tools needs. */
export interface RemoteToolsContext {
  readonly config: McpServerConfig;
  /** `mcp:<name>`. */
  readonly group: string;
  /** Names handed out across toolsets. */
  readonly names: ToolNameRegistry;
  /** Model-facing names this toolset was given, by the server's tool name (stable across refreshes). */
  readonly given: Map<string, string>;
  /** Where tools that cannot be offered are reported. */
  readonly problems: McpToolProblem[];
  /** The credential every tool declares: the user's token for a server with `oauth`. */
  credentials?: readonly CredentialSpec[];
  /** Runs one `tools/call` of the server's tool `originalName`. */
  call(
    originalName: string,
    args: Record<string, unknown>,
    context: ToolExecutionContext,
  ): Promise<ToolResult>;
}

const MAX_DESCRIPTION = 2000;

/** The model-facing name of `remote`, or `undefined` (reported) when another tool holds it. */
function nameOf(remote: RemoteTool, at: RemoteToolsContext): string | undefined {
  const { config } = at;
  const wanted = config.toolNamePrefix ? `${config.toolNamePrefix}_${remote.name}` : remote.name;
  const name = at.given.get(remote.name) ?? at.names.register(`${at.group}/${remote.name}`, wanted);
  if (name) at.given.set(remote.name, name);
  else
    at.problems.push({
      server: config.name,
      tool: remote.name,
      message: `duplicate tool name ${wanted}`,
    });
  return name;
}

/** The description the model sees: the server's (or a stand-in), cut at 2,000 characters (reported). */
function descriptionOf(remote: RemoteTool, at: RemoteToolsContext): string {
  const { config } = at;
  const description =
    (remote.description ?? '').trim() || `Tool ${remote.name} of MCP server ${config.name}.`;
  if (description.length <= MAX_DESCRIPTION) return `[MCP server ${config.name}] ${description}`;
  at.problems.push({
    server: config.name,
    tool: remote.name,
    message: `its description (${description.length} characters) is cut at ${MAX_DESCRIPTION}`,
  });
  return `[MCP server ${config.name}] ${description.slice(0, MAX_DESCRIPTION)}…`;
}

/**
 * One tool's approval policy, most specific first: its entry in `toolPolicies`, then
 * `autoApprove` (never asks), then — only with `trustAnnotations` — a read-only annotation
 * (low risk), then the server's `riskLevel` and `requiresApproval`.
 */
export function policyOf(
  remote: RemoteTool,
  config: McpServerConfig,
): { riskLevel: RiskLevel; requiresApproval?: boolean; idempotent?: boolean } {
  const own = config.toolPolicies?.[remote.name];
  const readOnly =
    config.trustAnnotations === true &&
    remote.annotations?.readOnlyHint === true &&
    remote.annotations.destructiveHint !== true;
  const riskLevel = own?.riskLevel ?? (readOnly ? 'low' : config.riskLevel);
  const requiresApproval =
    own?.requiresApproval ??
    (config.autoApprove?.includes(remote.name) ? false : config.requiresApproval);
  // A server's word that a repeat does no more than the first call (a read, or idempotentHint):
  // trusted like its other hints.
  const idempotent =
    readOnly || (config.trustAnnotations === true && remote.annotations?.idempotentHint === true);
  return {
    riskLevel,
    ...(requiresApproval !== undefined ? { requiresApproval } : {}),
    ...(idempotent ? { idempotent } : {}),
  };
}

/** One listed tool as a KsADK tool at the configured risk, so the gateway gates it. */
function remoteTool(remote: RemoteTool, name: string, at: RemoteToolsContext): Tool {
  const { config } = at;
  return defineJsonSchemaTool({
    name,
    originalName: remote.name,
    description: descriptionOf(remote, at),
    inputSchema: remote.inputSchema ?? { type: 'object' },
    group: at.group,
    boundary: 'remote_mcp_server',
    timeoutMs: config.timeoutMs + 1000,
    // Each piece of text once (text or structured content); parts past the inline cap
    // saved, never inline.
    resultBudget: {
      fields: ['text', 'structured_content'],
      persistFields: [MCP_CONTENT_OVERFLOW_FIELD],
    },
    policy: { ...policyOf(remote, config), sideEffects: ['mcp_tool_call'] },
    ...(at.credentials ? { credentials: at.credentials } : {}),
    execute: (args, context) => at.call(remote.name, args, context),
  });
}

/**
 * The listed tools as KsADK tools: `tool_filter` on the server's own names, `<prefix>_<tool>`
 * names; tools that can only run as MCP tasks, or whose name or definition is refused, are
 * reported in `problems` (cleared first) instead.
 */
export function toRemoteTools(listed: readonly RemoteTool[], at: RemoteToolsContext): Tool[] {
  at.problems.length = 0;
  const filter = new Set(at.config.toolFilter);
  const out: Tool[] = [];
  for (const remote of listed) {
    if (filter.size > 0 && !filter.has(remote.name)) continue;
    if (remote.execution?.taskSupport === 'required') {
      // Only callable as an MCP task (tasks/*), which this client does not run.
      at.problems.push({
        server: at.config.name,
        tool: remote.name,
        message: 'it can only run as an MCP task, which KsADK does not support yet',
      });
      continue;
    }
    const name = nameOf(remote, at);
    if (!name) continue;
    try {
      out.push(remoteTool(remote, name, at));
    } catch (error) {
      at.problems.push({
        server: at.config.name,
        tool: remote.name,
        message: modelSafeErrorMessage(error),
      });
    }
  }
  return out;
}

/** Tools whose schemas every framework and the validator can use; the rest are reported. */
export async function usableTools(tools: readonly Tool[], at: RemoteToolsContext): Promise<Tool[]> {
  const out: Tool[] = [];
  for (const tool of tools) {
    const problem = await probeToolSchema(tool);
    if (problem) {
      at.problems.push({
        server: at.config.name,
        tool: tool.originalName ?? tool.name,
        message: problem,
      });
    } else out.push(tool);
  }
  return out;
}
