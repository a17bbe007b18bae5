import { getInvocationContextOrEmpty } from '../context/invocation-context.js';
import { checkOptions } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { type ApprovalMode, approvalModeFromEnv } from '../gateway/approval-mode.js';
import type { Tool } from '../tool/tool.js';
import { componentStatusTool } from '../toolsets/platform/component-status.js';
import {
  createWorkspaceToolset,
  type WorkspaceOptions,
  type WorkspaceToolset,
} from '../toolsets/workspace/index.js';
import {
  BUILTIN_TOOLS_ENV,
  type BuiltinToolsProfile,
  parseBuiltinToolsMode,
  parseBuiltinToolsProfile,
} from './catalog-modes.js';
import {
  type CatalogScope,
  createToolDispatcher,
  createToolSearch,
  DISPATCHER_ALIAS,
  DISPATCHER_NAME,
  TOOL_SEARCH_NAME,
} from './catalog-tools.js';
import {
  describeExternal,
  type ExternalEntry,
  type ExternalToolSpec,
  type RegisterExternalToolsOptions,
} from './external-tools.js';
import { createSearchIndex, type SearchIndex, searchEntryOf } from './search-scoring.js';
import { describeTool, type ToolDescriptor } from './tool-descriptor.js';

/** Built-in groups in catalogue order (only those bound appear). */
export const DEFAULT_GROUP_ORDER = ['skill', 'workspace', 'platform', 'sandbox', 'web'] as const;

/** The focused set (`focused` / `core`, and the `coding` profile), in order. */
export const FOCUSED_TOOL_NAMES = [
  'workspace_status',
  'list_workspace_files',
  'read_workspace_file',
  'write_workspace_file',
  'write_workspace_files',
  'search_workspace_files',
  'edit_workspace_file',
  'multi_edit_workspace_file',
  'lint_workspace_file',
  'component_status',
  'sandbox_status',
  'run_command',
  'run_code',
  'web_fetch',
  'web_search',
  'tool_search',
] as const;

/** Options for {@link createToolCatalog}. */
export interface ToolCatalogOptions {
  /** The workspace toolset's options, or `false` for none. @default a workspace under the session directory */
  workspace?: WorkspaceOptions | false;
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
  /** The Python KsADK's name for {@link ToolCatalog.getTools} (prompts and skills may cite it). */
  getAgentEngineTools(selection?: ToolSelection): Tool[];
  /** Descriptors (with JSON Schema `args`) for the same selection, plus external tools where included. */
  describeTools(selection?: ToolSelection): ToolDescriptor[];
  /** The Python KsADK's name for {@link ToolCatalog.describeTools}. */
  describeAgentEngineTools(selection?: ToolSelection): ToolDescriptor[];
  /** Tools per `KSADK_BUILTIN_TOOLS_MODE` (default `off`) and `KSADK_BUILTIN_TOOLS_PROFILE` (default `default`). */
  builtinToolsForRuntime(overrides?: { mode?: string; profile?: string }): Tool[];
  /** Registers tools run elsewhere (or runnable external tools), searchable and describable; returns their names. */
  registerExternalTools(
    entries: readonly (Tool | ExternalToolSpec)[],
    options?: RegisterExternalToolsOptions,
  ): string[];
  /** Forgets every external registration, or one group's. */
  clearExternalTools(group?: string): void;
  /** The registered external tools KsADK can run (enabled ones), in registration order. */
  externalTools(): Tool[];
}

/** True for a {@link ToolCatalog} (as opposed to the options for one). */
export function isToolCatalog(value: unknown): value is ToolCatalog {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ToolCatalog).getTools === 'function'
  );
}

const isTool = (value: Tool | ExternalToolSpec): value is Tool =>
  typeof (value as Tool).execute === 'function' &&
  ((value as Tool).kind === 'zod' || (value as Tool).kind === 'json-schema');

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
  checkOptions(options, ['workspace', 'env'], 'createToolCatalog()');
  const env = options.env ?? process.env;
  const groups = new Map<string, Tool[]>();
  const external = new Map<string, ExternalEntry>();
  /** Bumped by every registration: search indexes built for an older version are rebuilt. */
  let version = 0;
  const workspace =
    options.workspace === false ? undefined : createWorkspaceToolset({ env, ...options.workspace });
  if (workspace) groups.set('workspace', [...workspace.tools]);

  const orderedGroups = (): string[] => {
    const known = DEFAULT_GROUP_ORDER.filter((group) => groups.has(group));
    const others = [...groups.keys()].filter(
      (group) => !(DEFAULT_GROUP_ORDER as readonly string[]).includes(group),
    );
    return [...known, ...others];
  };
  const builtinTools = (): Map<string, Tool> => {
    const byName = new Map<string, Tool>();
    for (const group of orderedGroups())
      for (const tool of groups.get(group) ?? [])
        if (!byName.has(tool.name)) byName.set(tool.name, tool);
    return byName;
  };
  const profileNames = (profile: BuiltinToolsProfile, withCatalogTools: boolean): string[] => {
    const builtins = builtinTools();
    if (profile === 'coding') {
      return FOCUSED_TOOL_NAMES.filter(
        (name) => builtins.has(name) || (withCatalogTools && name === TOOL_SEARCH_NAME),
      );
    }
    return [...builtins.keys()];
  };
  const modeNow = (): ApprovalMode =>
    getInvocationContextOrEmpty().approvalMode ?? approvalModeFromEnv(env);

  /** Expands an include into names; throws for unknown entries, listing the valid ones. */
  const expand = (
    include: string | readonly string[] | undefined,
    profile: BuiltinToolsProfile,
    withCatalogTools: boolean,
  ): string[] => {
    const requested = (typeof include === 'string' ? [include] : (include ?? []))
      .flatMap((entry) => entry.split(','))
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean);
    if (requested.length === 0) return profileNames(profile, withCatalogTools);
    const builtins = builtinTools();
    const catalogNames = withCatalogTools
      ? [DISPATCHER_NAME, DISPATCHER_ALIAS, TOOL_SEARCH_NAME]
      : [];
    const names: string[] = [];
    for (const raw of requested) {
      const entry = raw === 'skills' ? 'skill' : raw;
      if (entry === 'focused' || entry === 'core' || entry === 'coding')
        names.push(...profileNames('coding', withCatalogTools));
      else if (entry === 'default') names.push(...profileNames('default', withCatalogTools));
      else if (groups.has(entry)) names.push(...(groups.get(entry) ?? []).map((tool) => tool.name));
      else if (entry === 'mcp')
        names.push(
          ...[...external.values()].filter((e) => groupOf(e).startsWith('mcp:')).map(nameOf),
        );
      else if ([...external.values()].some((e) => groupOf(e) === entry))
        names.push(...[...external.values()].filter((e) => groupOf(e) === entry).map(nameOf));
      else if (builtins.has(entry) || catalogNames.includes(entry) || external.has(entry))
        names.push(entry);
      else {
        const valid = [
          ...orderedGroups(),
          'focused',
          'core',
          'default',
          'coding',
          ...builtins.keys(),
          ...catalogNames,
          ...external.keys(),
        ];
        throw new KsadkError(
          'invalid_config',
          `Unknown AgentEngine toolset or tool: ${raw}. Valid: ${[...new Set(valid)].join(', ')}.`,
          {
            details: { unknown: raw },
          },
        );
      }
    }
    return [...new Set(names)];
  };

  /** A dispatcher/search scope over `allowed` names (plus runnable external tools). */
  const scopeOf = (allowed: readonly string[]): CatalogScope => {
    const allowedSet = new Set(allowed);
    let index: { key: string; all: SearchIndex; enabled: SearchIndex } | undefined;
    const describeNames = (names: string[]): ToolDescriptor[] => {
      const mode = modeNow();
      const builtins = builtinTools();
      return names.flatMap((name) => {
        const tool = builtins.get(name);
        if (tool) return [describeTool(tool, mode)];
        if (name === TOOL_SEARCH_NAME) return [describeTool(createToolSearch(scope), mode)];
        const entry = external.get(name);
        return entry ? [describeExternal(entry, mode)] : [];
      });
    };
    const scope: CatalogScope = {
      describe(include, profile) {
        if (include === undefined && profile === undefined) return describeNames([...allowedSet]);
        const inScope = (name: string): boolean => allowedSet.has(name) || external.has(name);
        const names = expand(include ?? profile, 'default', true);
        const unavailable = names.filter((name) => !inScope(name));
        if (include !== undefined && unavailable.length > 0) {
          throw new KsadkError(
            'invalid_config',
            `Not available to this agent: ${unavailable.join(', ')}`,
          );
        }
        return describeNames(names.filter(inScope));
      },
      findTool(name) {
        if (allowedSet.has(name)) {
          const tool = builtinTools().get(name);
          if (tool) return tool;
        }
        const entry = external.get(name);
        return entry?.kind === 'tool' && entry.enabled ? entry.tool : undefined;
      },
      searchable(_profile, includeDisabled) {
        const key = `${version}|${modeNow()}`;
        if (index?.key !== key) {
          const descriptors = [
            ...describeNames([...allowedSet]),
            ...[...external.values()].map((entry) => describeExternal(entry, modeNow())),
          ];
          const unique = new Map(descriptors.map((descriptor) => [descriptor.name, descriptor]));
          const all = [...unique.values()].map(searchEntryOf);
          index = {
            key,
            all: createSearchIndex(all),
            enabled: createSearchIndex(all.filter((entry) => entry.descriptor.enabled)),
          };
        }
        return includeDisabled ? index.all : index.enabled;
      },
    };
    return scope;
  };

  const toolsFor = (names: readonly string[], scopeNames: readonly string[]): Tool[] => {
    const builtins = builtinTools();
    const scope = scopeOf(scopeNames);
    return names.map((name) => {
      const tool = builtins.get(name);
      if (tool) return tool;
      if (name === DISPATCHER_NAME || name === DISPATCHER_ALIAS)
        return createToolDispatcher(scope, name);
      if (name === TOOL_SEARCH_NAME) return createToolSearch(scope);
      const entry = external.get(name);
      if (entry?.kind === 'tool') return entry.tool;
      throw new KsadkError(
        'invalid_config',
        `${name} is registered as a description only; the framework that registered it runs it.`,
      );
    });
  };

  const CATALOG_TOOL_NAMES: readonly string[] = [
    DISPATCHER_NAME,
    DISPATCHER_ALIAS,
    TOOL_SEARCH_NAME,
  ];

  /** The names a selection yields, and the names its dispatcher and search tools may reach. */
  const select = (selection: ToolSelection): { names: string[]; scopeNames: string[] } => {
    const mode = parseBuiltinToolsMode(selection.mode ?? 'direct', 'mode');
    const profile = parseBuiltinToolsProfile(selection.profile ?? 'default', 'profile');
    const profileScope = profileNames(profile, false);
    if (mode === 'off') return { names: [], scopeNames: [] };
    if (selection.include === undefined) {
      if (mode === 'dispatcher') return { names: [DISPATCHER_NAME], scopeNames: profileScope };
      if (mode === 'deferred')
        return { names: [TOOL_SEARCH_NAME, DISPATCHER_NAME], scopeNames: profileScope };
      return { names: profileNames(profile, true), scopeNames: profileScope };
    }
    const names = expand(selection.include, profile, true);
    const concrete = names.filter((name) => !CATALOG_TOOL_NAMES.includes(name));
    return { names, scopeNames: concrete.length > 0 ? concrete : profileScope };
  };

  const catalog: ToolCatalog = {
    get groups() {
      return orderedGroups();
    },
    workspace,
    registerToolset(group, tools) {
      version += 1;
      const name = group.trim().toLowerCase();
      if (name === '' || name === 'dispatcher' || name === 'tools') {
        throw new KsadkError(
          'invalid_config',
          `"${group}" cannot be used as a toolset group name.`,
        );
      }
      groups.set(name, [...(groups.get(name) ?? []), ...tools]);
    },
    getTools(selection = {}) {
      const { names, scopeNames } = select(selection);
      return toolsFor(names, scopeNames);
    },
    getAgentEngineTools: (selection) => catalog.getTools(selection),
    describeAgentEngineTools: (selection) => catalog.describeTools(selection),
    describeTools(selection = {}) {
      const { names, scopeNames } = select(selection);
      const mode = modeNow();
      const builtins = builtinTools();
      return names.map((name) => {
        const builtin = builtins.get(name);
        if (builtin) return describeTool(builtin, mode);
        const entry = external.get(name);
        if (entry) return describeExternal(entry, mode);
        const [tool] = toolsFor([name], scopeNames);
        if (name === TOOL_SEARCH_NAME) return describeTool(tool!, mode, { actions: ['search'] });
        return describeTool(tool!, mode, {
          actions: ['list', 'describe', 'call'],
          ...(name === DISPATCHER_ALIAS ? { compat_alias_for: DISPATCHER_NAME } : {}),
        });
      });
    },
    builtinToolsForRuntime(overrides = {}) {
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
    registerExternalTools(entries, registration = {}) {
      version += 1;
      const names: string[] = [];
      for (const entry of entries) {
        const enabled = registration.enabled ?? true;
        if (isTool(entry)) {
          external.set(entry.name, { kind: 'tool', tool: entry, enabled });
          names.push(entry.name);
          continue;
        }
        const name = entry.name?.trim();
        if (!name) continue;
        external.set(name, {
          kind: 'spec',
          spec: { ...entry, name },
          group: registration.group ?? 'external',
          boundary: registration.boundary ?? 'framework_managed_external_tool',
          riskLevel: registration.riskLevel ?? 'medium',
          enabled,
        });
        names.push(name);
      }
      return names;
    },
    externalTools() {
      return [...external.values()].flatMap((entry) =>
        entry.kind === 'tool' && entry.enabled ? [entry.tool] : [],
      );
    },
    clearExternalTools(group) {
      version += 1;
      for (const [name, entry] of external)
        if (group === undefined || groupOf(entry) === group) external.delete(name);
    },
  };
  catalog.registerToolset('platform', [
    componentStatusTool({
      env,
      toolsByGroup: () =>
        Object.fromEntries(
          orderedGroups().map((g) => [g, (groups.get(g) ?? []).map((t) => t.name)]),
        ),
    }),
  ]);
  return catalog;
}

function groupOf(entry: ExternalEntry): string {
  return entry.kind === 'tool' ? entry.tool.group : (entry.spec.group ?? entry.group);
}

function nameOf(entry: ExternalEntry): string {
  return entry.kind === 'tool' ? entry.tool.name : entry.spec.name;
}
