import { KsadkError } from '../errors/ksadk-error.js';
import type { ApprovalMode } from '../gateway/approval/mode.js';
import type { Tool } from '../tool/tool.js';
import {
  type CatalogScope,
  createToolDispatcher,
  createToolSearch,
  DISPATCHER_ALIAS,
  DISPATCHER_NAME,
  TOOL_SEARCH_NAME,
} from './catalog-tools.js';
import { describeExternal } from './external-tools.js';
import { expandInclude } from './include-resolution.js';
import { createSearchIndex, type SearchIndex, searchEntryOf } from './search-scoring.js';
import { describeTool, type ToolDescriptor } from './tool-descriptor.js';
import type { ToolRegistry } from './tool-registry.js';

/**
 * The scope a dispatcher and `tool_search` work in: `allowed` names plus the runnable external
 * tools. Its search index is built once per registry version and approval mode.
 */
export function catalogScope(
  registry: ToolRegistry,
  allowed: readonly string[],
  modeNow: () => ApprovalMode,
): CatalogScope {
  const allowedSet = new Set(allowed);
  let index: { key: string; all: SearchIndex; enabled: SearchIndex } | undefined;
  const describeNames = (names: string[]): ToolDescriptor[] => {
    const mode = modeNow();
    const builtins = registry.builtinTools();
    return names.flatMap((name) => {
      const tool = builtins.get(name);
      if (tool) return [describeTool(tool, mode)];
      if (name === TOOL_SEARCH_NAME) return [describeTool(createToolSearch(scope), mode)];
      const entry = registry.external.get(name);
      return entry ? [describeExternal(entry, mode)] : [];
    });
  };
  const scope: CatalogScope = {
    describe(include, profile) {
      if (include === undefined && profile === undefined) return describeNames([...allowedSet]);
      const inScope = (name: string): boolean =>
        allowedSet.has(name) || registry.external.has(name);
      const names = expandInclude(registry, include ?? profile, 'default', true);
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
        const tool = registry.builtinTools().get(name);
        if (tool) return tool;
      }
      const entry = registry.external.get(name);
      return entry?.kind === 'tool' && entry.enabled ? entry.tool : undefined;
    },
    searchable(_profile, includeDisabled) {
      const key = `${registry.version}|${modeNow()}`;
      if (index?.key !== key) {
        const descriptors = [
          ...describeNames([...allowedSet]),
          ...[...registry.external.values()].map((entry) => describeExternal(entry, modeNow())),
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
}

/** The runnable tools for `names`, with dispatcher and search bound to `scope`. */
export function scopedTools(
  registry: ToolRegistry,
  names: readonly string[],
  scope: CatalogScope,
): Tool[] {
  const builtins = registry.builtinTools();
  return names.map((name) => {
    const tool = builtins.get(name);
    if (tool) return tool;
    if (name === DISPATCHER_NAME || name === DISPATCHER_ALIAS)
      return createToolDispatcher(scope, name);
    if (name === TOOL_SEARCH_NAME) return createToolSearch(scope);
    const entry = registry.external.get(name);
    if (entry?.kind === 'tool') return entry.tool;
    throw new KsadkError(
      'invalid_config',
      `${name} is registered as a description only; the framework that registered it runs it.`,
    );
  });
}
