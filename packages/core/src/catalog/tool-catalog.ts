import { getInvocationContextOrEmpty } from '../context/invocation-context.js';
import { checkOptions } from '../errors/check-options.js';
import { type ApprovalMode, approvalModeFromEnv } from '../gateway/approval/mode.js';
import { createSandboxToolset, type SandboxToolsetOptions } from '../sandbox/tools/index.js';
import type { Tool } from '../tool/tool.js';
import { type WebToolsetOptions, webToolsetFromEnv } from '../web/tools/index.js';
import {
  createWorkspaceToolset,
  type WorkspaceOptions,
  type WorkspaceToolset,
} from '../workspace/index.js';
import {
  BUILTIN_TOOLS_ENV,
  parseBuiltinToolsMode,
  parseBuiltinToolsProfile,
} from './catalog-modes.js';
import { catalogScope, scopedTools } from './catalog-scope.js';
import { DISPATCHER_ALIAS, DISPATCHER_NAME, TOOL_SEARCH_NAME } from './catalog-tools.js';
import { componentStatusTool } from './component-status.js';
import {
  describeExternal,
  type ExternalToolSpec,
  type RegisterExternalToolsOptions,
} from './external-tools.js';
import { expandInclude, profileNames } from './include-resolution.js';
import { describeTool, type ToolDescriptor } from './tool-descriptor.js';
import { createToolRegistry } from './tool-registry.js';

export { DEFAULT_GROUP_ORDER, FOCUSED_TOOL_NAMES } from './tool-registry.js';

/** Options for {@link createToolCatalog}. */
export interface ToolCatalogOptions {
  /** The workspace toolset's options, or `false` for none. @default a workspace under the session directory */
  workspace?: WorkspaceOptions | false;
  /**
   * The sandbox toolset's options (its backend defaults from `KSADK_SANDBOX_BACKEND`; nothing
   * configured = disabled), or `false` for none. Commands see the catalogue's workspace.
   */
  sandbox?: Omit<SandboxToolsetOptions, 'env'> | false;
  /**
   * The web toolset's options (on top of the `KSADK_WEB_*` variables), or `false` for none.
   */
  web?: WebToolsetOptions | false;
  /** Where `KSADK_*` variables are read. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** What to select. */
export interface ToolSelection {
  /** Groups (`workspace`, `skills`…), `focused`/`core`, profiles, tool names, external groups or `mcp`; an array or a comma-separated string. */
  include?: string | readonly string[];
  /** `default` (every bound group) or `coding` (the focused set). @default 'default' */
  profile?: string;
  /** `off`, `direct`, `dispatcher`, `deferred`. @default 'direct' */
  mode?: string;
}

/** A tool catalogue: the bound toolsets, selection, dispatcher, search and external registrations. */
export interface ToolCatalog {
  /** Bound built-in groups, in catalogue order. */
  readonly groups: readonly string[];
  /** The workspace toolset, when bound. */
  readonly workspace: WorkspaceToolset | undefined;
  /** Binds a toolset's tools under a group (later toolsets plug in here). */
  registerToolset(group: string, tools: readonly Tool[]): void;
  /** Tools for an agent. */
  getTools(selection?: ToolSelection): Tool[];
  /** Descriptors (with JSON Schema `args`) for the same selection, plus external tools where included. */
  describeTools(selection?: ToolSelection): ToolDescriptor[];
  /** Tools per `KSADK_BUILTIN_TOOLS_MODE` (default `off`) and `KSADK_BUILTIN_TOOLS_PROFILE` (default `default`). */
  builtinToolsFromEnv(overrides?: { mode?: string; profile?: string }): Tool[];
  /** Registers tools run elsewhere (or runnable external tools), searchable and describable; returns their names. */
  registerExternalTools(
    entries: readonly (Tool | ExternalToolSpec)[],
    options?: RegisterExternalToolsOptions,
  ): string[];
  /** Forgets every external registration, or one group's. */
  clearExternalTools(group?: string): void;
  /** The registered external tools KsADK can run (enabled ones), in registration order. */
  externalTools(): Tool[];
  /** Configuration problems the built-in toolsets found (bad `KSADK_WEB_*` values…). */
  readonly problems: readonly string[];
  /** Releases what the built-in toolsets hold (sandbox sessions, connection pools). Idempotent. */
  close(): Promise<void>;
}

/** True for a {@link ToolCatalog} (as opposed to the options for one). */
export function isToolCatalog(value: unknown): value is ToolCatalog {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ToolCatalog).getTools === 'function'
  );
}

/**
 * Creates a tool catalogue. Each catalogue is independent (its own workspace read state and
 * external registrations); nothing is process-global.
 *
 * @example
 * ```ts
 * const catalog = createToolCatalog({ workspace: { root: '/srv/ws' } });
 * const tools = catalog.getTools({ profile: 'coding' });
 * ```
 */
export function createToolCatalog(options: ToolCatalogOptions = {}): ToolCatalog {
  checkOptions(
    options,
    { workspace: true, sandbox: true, web: true, env: true },
    'createToolCatalog()',
  );
  const env = options.env ?? process.env;
  const registry = createToolRegistry();
  const workspace =
    options.workspace === false ? undefined : createWorkspaceToolset({ env, ...options.workspace });
  if (workspace) registry.registerToolset('workspace', [...workspace.tools]);
  const sandbox =
    options.sandbox === false
      ? undefined
      : createSandboxToolset({
          env,
          workspace: workspace?.setup ?? false,
          ...options.sandbox,
        });
  if (sandbox) registry.registerToolset('sandbox', [...sandbox.tools]);
  const web = options.web === false ? undefined : webToolsetFromEnv({ env, ...options.web });
  if (web) registry.registerToolset('web', [...web.tools]);
  const modeNow = (): ApprovalMode =>
    getInvocationContextOrEmpty().approvalMode ?? approvalModeFromEnv(env);
  const CATALOG_TOOL_NAMES: readonly string[] = [
    DISPATCHER_NAME,
    DISPATCHER_ALIAS,
    TOOL_SEARCH_NAME,
  ];

  /** The names a selection yields, and the names its dispatcher and search tools may reach. */
  const select = (selection: ToolSelection): { names: string[]; scopeNames: string[] } => {
    const mode = parseBuiltinToolsMode(selection.mode ?? 'direct', 'mode');
    const profile = parseBuiltinToolsProfile(selection.profile ?? 'default', 'profile');
    const profileScope = profileNames(registry, profile, false);
    if (mode === 'off') return { names: [], scopeNames: [] };
    if (selection.include === undefined) {
      if (mode === 'dispatcher') return { names: [DISPATCHER_NAME], scopeNames: profileScope };
      if (mode === 'deferred')
        return { names: [TOOL_SEARCH_NAME, DISPATCHER_NAME], scopeNames: profileScope };
      return { names: profileNames(registry, profile, true), scopeNames: profileScope };
    }
    const names = expandInclude(registry, selection.include, profile, true);
    const concrete = names.filter((name) => !CATALOG_TOOL_NAMES.includes(name));
    return { names, scopeNames: concrete.length > 0 ? concrete : profileScope };
  };
  const toolsFor = (names: readonly string[], scopeNames: readonly string[]): Tool[] =>
    scopedTools(registry, names, catalogScope(registry, scopeNames, modeNow));

  const catalog: ToolCatalog = {
    get groups() {
      return registry.orderedGroups();
    },
    workspace,
    registerToolset: (group, tools) => registry.registerToolset(group, tools),
    getTools(selection = {}) {
      const { names, scopeNames } = select(selection);
      return toolsFor(names, scopeNames);
    },
    describeTools(selection = {}) {
      const { names, scopeNames } = select(selection);
      const mode = modeNow();
      const builtins = registry.builtinTools();
      return names.map((name) => {
        const builtin = builtins.get(name);
        if (builtin) return describeTool(builtin, mode);
        const entry = registry.external.get(name);
        if (entry) return describeExternal(entry, mode);
        const [tool] = toolsFor([name], scopeNames);
        if (name === TOOL_SEARCH_NAME) return describeTool(tool!, mode, { actions: ['search'] });
        return describeTool(tool!, mode, {
          actions: ['list', 'describe', 'call'],
          ...(name === DISPATCHER_ALIAS ? { compat_alias_for: DISPATCHER_NAME } : {}),
        });
      });
    },
    builtinToolsFromEnv(overrides = {}) {
      const mode = overrides.mode ?? env[BUILTIN_TOOLS_ENV.mode] ?? 'off';
      const profile = overrides.profile ?? env[BUILTIN_TOOLS_ENV.profile] ?? 'default';
      return catalog.getTools({
        mode: parseBuiltinToolsMode(
          mode,
          overrides.mode === undefined ? BUILTIN_TOOLS_ENV.mode : 'mode',
        ),
        profile: parseBuiltinToolsProfile(
          profile,
          overrides.profile === undefined ? BUILTIN_TOOLS_ENV.profile : 'profile',
        ),
      });
    },
    registerExternalTools: (entries, registration = {}) =>
      registry.registerExternal(entries, registration),
    externalTools() {
      return [...registry.external.values()].flatMap((entry) =>
        entry.kind === 'tool' && entry.enabled ? [entry.tool] : [],
      );
    },
    clearExternalTools: (group) => registry.clearExternal(group),
    problems: web?.problems ?? [],
    close: async () => {
      await Promise.allSettled([sandbox?.close(), web?.close()]);
    },
  };
  catalog.registerToolset('platform', [
    componentStatusTool({
      env,
      sandboxBackend: () => sandbox?.backend,
      toolsByGroup: () =>
        Object.fromEntries(
          registry
            .orderedGroups()
            .map((group) => [group, (registry.groupTools(group) ?? []).map((tool) => tool.name)]),
        ),
    }),
  ]);
  return catalog;
}
