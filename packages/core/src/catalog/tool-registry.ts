import { KsadkError } from '../errors/ksadk-error.js';
import type { Tool } from '../tool/tool.js';
import type {
  ExternalEntry,
  ExternalToolSpec,
  RegisterExternalToolsOptions,
} from './external-tools.js';

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

/** The group an external registration belongs to. */
export function groupOf(entry: ExternalEntry): string {
  return entry.kind === 'tool' ? entry.tool.group : (entry.spec.group ?? entry.group);
}

/** The name of an external registration. */
export function nameOf(entry: ExternalEntry): string {
  return entry.kind === 'tool' ? entry.tool.name : entry.spec.name;
}

const isTool = (value: Tool | ExternalToolSpec): value is Tool =>
  typeof (value as Tool).execute === 'function' &&
  ((value as Tool).kind === 'zod' || (value as Tool).kind === 'json-schema');

/** What a catalogue holds: bound built-in groups and external registrations. */
export interface ToolRegistry {
  /** Bound groups in catalogue order. */
  orderedGroups(): string[];
  /** The tools of a bound group. */
  groupTools(group: string): readonly Tool[] | undefined;
  /** Every bound built-in tool by name (the first group to bind a name wins). */
  builtinTools(): Map<string, Tool>;
  /** External registrations by name. */
  readonly external: ReadonlyMap<string, ExternalEntry>;
  /** Bumped by every registration: derived indexes built for an older version are rebuilt. */
  readonly version: number;
  registerToolset(group: string, tools: readonly Tool[]): void;
  registerExternal(
    entries: readonly (Tool | ExternalToolSpec)[],
    options: RegisterExternalToolsOptions,
  ): string[];
  clearExternal(group?: string): void;
}

/** Creates an empty registry. */
export function createToolRegistry(): ToolRegistry {
  const groups = new Map<string, Tool[]>();
  const external = new Map<string, ExternalEntry>();
  let version = 0;
  const orderedGroups = (): string[] => {
    const known = DEFAULT_GROUP_ORDER.filter((group) => groups.has(group));
    const others = [...groups.keys()].filter(
      (group) => !(DEFAULT_GROUP_ORDER as readonly string[]).includes(group),
    );
    return [...known, ...others];
  };
  return {
    orderedGroups,
    groupTools: (group) => groups.get(group),
    builtinTools() {
      const byName = new Map<string, Tool>();
      for (const group of orderedGroups())
        for (const tool of groups.get(group) ?? [])
          if (!byName.has(tool.name)) byName.set(tool.name, tool);
      return byName;
    },
    external,
    get version() {
      return version;
    },
    registerToolset(group, tools) {
      const name = group.trim().toLowerCase();
      if (name === '' || name === 'dispatcher' || name === 'tools') {
        throw new KsadkError(
          'invalid_config',
          `"${group}" cannot be used as a toolset group name.`,
        );
      }
      version += 1;
      groups.set(name, [...(groups.get(name) ?? []), ...tools]);
    },
    registerExternal(entries, registration) {
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
    clearExternal(group) {
      version += 1;
      for (const [name, entry] of external)
        if (group === undefined || groupOf(entry) === group) external.delete(name);
    },
  };
}
