import { KsadkError } from '../errors/ksadk-error.js';
import type { BuiltinToolsProfile } from './catalog-modes.js';
import { DISPATCHER_ALIAS, DISPATCHER_NAME, TOOL_SEARCH_NAME } from './catalog-tools.js';
import { FOCUSED_TOOL_NAMES, groupOf, nameOf, type ToolRegistry } from './tool-registry.js';

/** The names a profile stands for: `coding` is the focused set, `default` every bound built-in. */
export function profileNames(
  registry: ToolRegistry,
  profile: BuiltinToolsProfile,
  withCatalogTools: boolean,
): string[] {
  const builtins = registry.builtinTools();
  if (profile === 'coding') {
    return FOCUSED_TOOL_NAMES.filter(
      (name) => builtins.has(name) || (withCatalogTools && name === TOOL_SEARCH_NAME),
    );
  }
  return [...builtins.keys()];
}

/** An include as its entries: an array or comma-separated string, trimmed, lower-cased. */
export function parseInclude(include: string | readonly string[] | undefined): string[] {
  return (typeof include === 'string' ? [include] : (include ?? []))
    .flatMap((entry) => entry.split(','))
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * Expands an include — groups (`skills` = `skill`), `focused`/`core`/`coding`, `default`, tool
 * names, external groups, `mcp` — into tool names, each once, in order. No include gives the
 * profile's names.
 *
 * @throws {KsadkError} `invalid_config` for an unknown entry, listing the valid ones.
 */
export function expandInclude(
  registry: ToolRegistry,
  include: string | readonly string[] | undefined,
  profile: BuiltinToolsProfile,
  withCatalogTools: boolean,
): string[] {
  const requested = parseInclude(include);
  if (requested.length === 0) return profileNames(registry, profile, withCatalogTools);
  const builtins = registry.builtinTools();
  const external = [...registry.external.values()];
  const catalogNames = withCatalogTools
    ? [DISPATCHER_NAME, DISPATCHER_ALIAS, TOOL_SEARCH_NAME]
    : [];
  const names: string[] = [];
  for (const raw of requested) {
    const entry = raw === 'skills' ? 'skill' : raw;
    const group = registry.groupTools(entry);
    if (entry === 'focused' || entry === 'core' || entry === 'coding')
      names.push(...profileNames(registry, 'coding', withCatalogTools));
    else if (entry === 'default')
      names.push(...profileNames(registry, 'default', withCatalogTools));
    else if (group) names.push(...group.map((tool) => tool.name));
    else if (entry === 'mcp')
      names.push(...external.filter((e) => groupOf(e).startsWith('mcp:')).map(nameOf));
    else if (external.some((e) => groupOf(e) === entry))
      names.push(...external.filter((e) => groupOf(e) === entry).map(nameOf));
    else if (builtins.has(entry) || catalogNames.includes(entry) || registry.external.has(entry))
      names.push(entry);
    else {
      const valid = [
        ...registry.orderedGroups(),
        'focused',
        'core',
        'default',
        'coding',
        ...builtins.keys(),
        ...catalogNames,
        ...registry.external.keys(),
      ];
      throw new KsadkError(
        'invalid_config',
        `Unknown toolset or tool: ${raw}. Valid: ${[...new Set(valid)].join(', ')}.`,
        { details: { unknown: raw } },
      );
    }
  }
  return [...new Set(names)];
}
