import { z } from 'zod';
import { passesGatewayPauses } from '../gateway/forged-pause.js';
import { isApprovalRequired } from '../gateway/results.js';
import { normalizeSaveMemoryArguments } from '../memory/tools/save-memory-arguments.js';
import { defineTool } from '../tool/define-tool.js';
import type { Tool, ToolExecutionContext } from '../tool/tool.js';
import { echoValue } from '../util/sanitize-message.js';
import { parseArguments } from './dispatcher-arguments.js';
import { catalogFailure } from './failure.js';
import { type SearchIndex, searchTerms } from './search-scoring.js';
import type { ToolDescriptor } from './tool-descriptor.js';

/** Names of the catalogue's own tools. */
export const DISPATCHER_NAME = 'tool_dispatcher';
/** The legacy alias of `tool_dispatcher`. */
export const DISPATCHER_ALIAS = 'agentengine_tool_dispatcher';
/** The search tool's name. */
export const TOOL_SEARCH_NAME = 'tool_search';
const DISPATCHER_NAMES = new Set([DISPATCHER_NAME, DISPATCHER_ALIAS]);

/** What the dispatcher and search tools need from the catalogue, bound to one scope. */
export interface CatalogScope {
  /** Descriptors of `include` (comma-separated groups, profiles or names) or of the scope's default; throws for unknown names. */
  describe(include: string | undefined, profile: string | undefined): ToolDescriptor[];
  /** The runnable tool with this name inside the scope, if any. */
  findTool(name: string): Tool | undefined;
  /**
   * What `tool_search` ranks — the scope's plus external descriptors, indexed — rebuilt only when
   * a registration or the approval mode changed.
   */
  searchable(profile: string | undefined, includeDisabled: boolean): SearchIndex;
}

const ACTIONS: Record<string, 'list' | 'describe' | 'call'> = {
  list: 'list',
  ls: 'list',
  search: 'list',
  describe: 'describe',
  get: 'describe',
  info: 'describe',
  call: 'call',
  call_tool: 'call',
  execute: 'call',
  run: 'call',
  invoke: 'call',
};

/** Most names an error message lists. */
const MAX_LISTED_NAMES = 60;

/** The groups and tool names in `scope` (dispatchers left out), for an error message. */
function availableHere(scope: CatalogScope): string {
  const visible = scope.describe(undefined, undefined).filter((d) => !DISPATCHER_NAMES.has(d.name));
  const names = [...new Set([...visible.map((d) => d.group), ...visible.map((d) => d.name)])];
  const shown = names.slice(0, MAX_LISTED_NAMES).join(', ');
  return names.length > MAX_LISTED_NAMES ? `${shown}, … (${names.length} in all)` : shown || 'none';
}

// Schemas are built when a catalogue makes its tools, not when the module loads.
const dispatcherInput = () =>
  z.object({
    action: z.string().describe('list, describe or call'),
    tool_name: z.string().nullish(),
    arguments: z
      .union([z.record(z.string(), z.unknown()), z.string()])
      .nullish()
      .describe('Arguments for call: a JSON object (or its JSON text)'),
    include: z
      .string()
      .nullish()
      .describe('For list: comma-separated groups, profiles or tool names'),
    profile: z.string().nullish(),
  });

type DispatcherInput = z.infer<ReturnType<typeof dispatcherInput>>;
type DispatcherResult = Record<string, unknown>;

/** The action asked for (a bare tool name as the action calls it), or the error to answer. */
function actionOf(
  scope: CatalogScope,
  input: DispatcherInput,
): { action: 'list' | 'describe' | 'call'; toolName: string } | { error: DispatcherResult } {
  const requested = input.action.trim().toLowerCase();
  const action = ACTIONS[requested];
  const toolName = input.tool_name?.trim() ?? '';
  if (action) return { action, toolName };
  if (toolName === '' && scope.findTool(requested)) return { action: 'call', toolName: requested };
  return {
    error: catalogFailure(
      'unknown_action',
      `Unknown action "${input.action}". Use list, describe or call.`,
    ),
  };
}

/** `list`: the descriptors of `include` (or the scope's default), dispatchers left out. */
function listTools(scope: CatalogScope, input: DispatcherInput): DispatcherResult {
  try {
    const tools = scope
      .describe(input.include ?? undefined, input.profile ?? undefined)
      .filter((d) => !DISPATCHER_NAMES.has(d.name));
    return { ok: true, tools, tool_count: tools.length };
  } catch {
    // Named from this agent's scope only: the registry's message would list every tool,
    // including the ones this agent may not see.
    const raw = input.include ?? input.profile ?? '';
    return catalogFailure(
      'unknown_tool',
      `Unknown or unavailable toolset or tool: ${echoValue(raw)}. Available here: ${availableHere(scope)}.`,
      { tool_name: echoValue(raw) },
    );
  }
}

/** The descriptor of the named tool in the scope (never a dispatcher), or the error to answer. */
function descriptorOf(
  scope: CatalogScope,
  toolName: string,
  profile: string | undefined,
): { descriptor: ToolDescriptor } | { error: DispatcherResult } {
  if (toolName === '')
    return {
      error: catalogFailure('missing_tool_name', 'tool_name is required'),
    };
  if (DISPATCHER_NAMES.has(toolName)) {
    return {
      error: catalogFailure('dispatcher_self_call', 'tool_dispatcher cannot call itself', {
        tool_name: DISPATCHER_NAME,
      }),
    };
  }
  let descriptor: ToolDescriptor | undefined;
  try {
    descriptor = scope.describe(toolName, profile).find((d) => d.name === toolName);
  } catch {
    descriptor = undefined;
  }
  if (descriptor) return { descriptor };
  return {
    error: catalogFailure('unknown_tool', `Unknown tool: ${toolName}`, { tool_name: toolName }),
  };
}

/** The runnable tool behind an enabled descriptor, or the error to answer. */
function targetOf(
  scope: CatalogScope,
  descriptor: ToolDescriptor,
  toolName: string,
): { target: Tool } | { error: DispatcherResult } {
  if (!descriptor.enabled) {
    return {
      error: catalogFailure('tool_disabled', `Tool is disabled: ${toolName}`, {
        tool_name: toolName,
      }),
    };
  }
  const target = scope.findTool(toolName);
  if (target) return { target };
  return {
    error: catalogFailure(
      'not_callable',
      `${toolName} is run by the framework that registered it, not by the dispatcher`,
      { tool_name: toolName },
    ),
  };
}

/** Runs the target through the gateway and reports its result under the dispatched tool's name. */
async function dispatch(
  target: Tool,
  toolName: string,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
): Promise<DispatcherResult> {
  const result = await context.gateway.invoke(target, args, {
    callId: `${context.callId}:${toolName}`,
    signal: context.signal,
    ...(context.approval !== undefined ? { approval: context.approval } : {}),
  });
  if (isApprovalRequired(result)) return { ...result, dispatched_tool_name: toolName };
  if (result.ok === false) {
    const errorType = result['error_type'];
    const message = result['error_message'];
    return {
      ...catalogFailure(
        'tool_error',
        typeof message === 'string' ? message : `${toolName} failed`,
        { tool_name: toolName, result },
      ),
      // The dispatched tool's own type, which may be one of its own rather than KsADK's.
      ...(typeof errorType === 'string' ? { error_type: errorType } : {}),
    };
  }
  return { ok: true, tool_name: toolName, result };
}

/** `tool_dispatcher` (or its alias): list, describe and call the tools in `scope`, every call through the gateway. */
export function createToolDispatcher(scope: CatalogScope, name: string = DISPATCHER_NAME): Tool {
  // It hands on the approval request the gateway made for the call it ran.
  return passesGatewayPauses(
    defineTool({
      name,
      description: `Discover and call the available built-in tools through one entry point. action "list" shows the tools (optionally only "include": comma-separated groups such as workspace, or tool names); "describe" shows one tool's arguments, risk and whether it needs approval; "call" runs tool_name with arguments (a JSON object). Calls go through the same approval checks as direct calls: a call that needs the user's approval comes back as approval_required — wait for the user, do not retry.${name === DISPATCHER_ALIAS ? ` Alias of ${DISPATCHER_NAME}.` : ''}`,
      input: dispatcherInput(),
      group: 'dispatcher',
      boundary: 'local_ksadk_builtin_tools',
      execute: async (input, context) => {
        const asked = actionOf(scope, input);
        if ('error' in asked) return asked.error;
        const { action, toolName } = asked;
        if (action === 'list') return listTools(scope, input);
        const described = descriptorOf(scope, toolName, input.profile ?? undefined);
        if ('error' in described) return described.error;
        if (action === 'describe') return { ok: true, tool: described.descriptor };
        const found = targetOf(scope, described.descriptor, toolName);
        if ('error' in found) return found.error;
        const args = parseArguments(input.arguments);
        if (args['ok'] === false) return { ...args, tool_name: toolName };
        const routed = toolName === 'save_memory' ? normalizeSaveMemoryArguments(args) : args;
        return dispatch(found.target, toolName, routed, context);
      },
    }),
  );
}

/** `tool_search`: ranks the scope's and the external tools for a query. */
export function createToolSearch(scope: CatalogScope): Tool {
  return defineTool({
    name: TOOL_SEARCH_NAME,
    description:
      'Find tools for a task by keywords (English or Chinese), e.g. "edit a file" or "run a command". Returns the best matches with their arguments and risk, and deferred_tool_names you can ask to load. Use it when the tool you need is not in your list.',
    input: z.object({
      query: z.string(),
      profile: z.string().nullish(),
      max_results: z.number().int().min(1).max(50).default(8),
      include_disabled: z.boolean().default(false),
    }),
    group: 'tools',
    boundary: 'local_ksadk_builtin_tool_registry',
    execute: (input) => {
      const query = input.query.trim();
      if (query === '') return catalogFailure('query_required', 'query is required');
      const terms = searchTerms(query);
      const results = scope
        .searchable(input.profile ?? undefined, input.include_disabled)
        .top(terms, input.max_results, (entry) => DISPATCHER_NAMES.has(entry.descriptor.name))
        .map(({ descriptor, score, matched }) => ({
          name: descriptor.name,
          description: descriptor.description,
          group: descriptor.group,
          args: descriptor.args,
          risk_level: descriptor.risk_level,
          enabled: descriptor.enabled,
          boundary: descriptor.boundary,
          execution: descriptor.execution,
          score,
          reason: `matched: ${matched.slice(0, 4).join(', ')}`,
        }));
      return {
        ok: true,
        query,
        profile: input.profile ?? 'coding',
        results,
        deferred_tool_names: results.map((result) => result.name),
      };
    },
  });
}
