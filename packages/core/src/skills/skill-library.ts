import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import { type LocalSkillsLoad, loadLocalSkills, type Skill } from './local-skills.js';
import type { SkillPackageStore } from './package-store.js';
import type { SkillServiceClient } from './service-client.js';
import type { SkillSpacesConfig } from './service-env.js';
import {
  comparableText,
  filterByAllowlist,
  matchSkills,
  type SkillMatch,
} from './skill-matching.js';
import { isActiveSkill, type SkillRef, type SkillSpace } from './skill-ref.js';
import { SkillServiceError } from './skill-service-error.js';

/** The space id of local skills in listings. */
export const LOCAL_SPACE = 'local';
/** The space id public (premade) skills are named by. */
export const PUBLIC_SPACE = 'public';

/** One listed skill: local or remote, what a model sees of it. */
export interface SkillEntry {
  name: string;
  description: string;
  version: string;
  space_id: string;
  source: 'local' | 'remote';
  aliases: string[];
  tags: string[];
  /** Remote only: the listing entry. */
  ref?: SkillRef;
  /** Local only: the loaded skill. */
  skill?: Skill;
}

/** A skill ready to read or run, and how it was obtained. */
export interface LoadedSkill {
  skill: Skill;
  entry: SkillEntry;
  cacheHit: boolean;
  verified: boolean;
  warnings: string[];
}

/** Options for {@link createSkillLibrary}. */
export interface SkillLibraryOptions {
  /** Local skills directory. */
  localDir?: string | undefined;
  /** The Skill Service and its configured spaces. */
  service?: { client: SkillServiceClient; spaces: SkillSpacesConfig } | undefined;
  /** Where remote skills are cached (required with `service`). */
  store?: SkillPackageStore | undefined;
}

/** Local and remote skills behind one interface: listing, search, loading. */
export interface SkillLibrary {
  readonly hasLocal: boolean;
  readonly hasRemote: boolean;
  /** Configured space ids a model may name: user spaces, then `public` when public spaces exist. */
  readonly spaceIds: readonly string[];
  /** The configured spaces with their names from the service. */
  spaces(): Promise<SkillSpace[]>;
  /** Skills of one space (`local`, a configured id, `public`) or all: local, user spaces, public. */
  list(spaceId?: string): Promise<{ entries: SkillEntry[]; warnings: string[] }>;
  search(
    query: string,
    options?: { spaceId?: string; limit?: number },
  ): Promise<SkillMatch<SkillEntry>[]>;
  /** One skill by name (case-insensitive), local first, then user spaces, then public. */
  load(name: string, spaceId?: string): Promise<LoadedSkill | undefined>;
  /** The skills a workflow run may use: matched by names or prompt, loaded and verified. */
  forRun(
    prompt: string,
    names: readonly string[],
  ): Promise<{ skills: Skill[]; warnings: string[] }>;
}

const collapse = (text: string, max: number): string =>
  text.replace(/\s+/g, ' ').trim().slice(0, max);

/** The error for a space id the configuration does not name (a model cannot reach others). */
export function spaceNotConfigured(spaceId: string, allowed: readonly string[]): SkillServiceError {
  return new SkillServiceError(
    'space_not_configured',
    `Skill space ${JSON.stringify(spaceId.slice(0, 80))} is not configured; use one of: ${allowed.join(', ') || '(none)'}`,
  );
}

/** What a library reads from: the local directory, the service and its cache, the spaces. */
interface LibrarySources {
  localDir: string | undefined;
  service: SkillLibraryOptions['service'];
  store: SkillPackageStore | undefined;
  /** Configured space ids a model may name: user spaces, then `public` when public spaces exist. */
  spaceIds: readonly string[];
  /** Every space id that may be named: `local` (with a local directory), then `spaceIds`. */
  allowed: readonly string[];
}

const localEntry = (skill: Skill): SkillEntry => ({
  name: skill.name,
  description: collapse(skill.description, 240),
  version: skill.frontmatter.metadata?.['version'] ?? '',
  space_id: LOCAL_SPACE,
  source: 'local',
  aliases: [],
  tags: [],
  skill,
});

const remoteEntry = (ref: SkillRef): SkillEntry => ({
  name: ref.name,
  description: collapse(ref.description, 240),
  version: ref.version,
  space_id: ref.spaceId,
  source: 'remote',
  aliases: ref.aliases.map((alias) => collapse(alias, 64)).slice(0, 20),
  tags: ref.tags.map((tag) => collapse(tag, 64)).slice(0, 20),
  ref,
});

/** The active skills of one remote space; for `public`, those the allowlist lets through. */
async function remoteEntries(
  service: SkillLibraryOptions['service'],
  spaceId: string,
): Promise<SkillEntry[]> {
  if (!service) return [];
  if (spaceId === PUBLIC_SPACE) {
    const premade = await service.client.listPublicSkills();
    return filterByAllowlist(
      premade.skills.filter(isActiveSkill),
      service.spaces.publicAllowlist,
    ).map((ref) => remoteEntry({ ...ref, spaceId: PUBLIC_SPACE }));
  }
  return (await service.client.listSkills(spaceId)).filter(isActiveSkill).map(remoteEntry);
}

/**
 * {@link SkillLibrary.list}: one space, or all (local, then user spaces, then public — a space
 * that fails is a warning), the first skill of each name kept.
 */
async function listEntries(
  sources: LibrarySources,
  spaceId?: string,
): Promise<{ entries: SkillEntry[]; warnings: string[] }> {
  if (spaceId !== undefined && !sources.allowed.includes(spaceId))
    throw spaceNotConfigured(spaceId, sources.allowed);
  const warnings: string[] = [];
  const entries: SkillEntry[] = [];
  const seen = new Set<string>();
  const add = (items: SkillEntry[]): void => {
    for (const item of items) {
      const key = comparableText(item.name);
      if (!key || seen.has(key)) continue;
      seen.add(key);
      entries.push(item);
    }
  };
  if (spaceId === undefined || spaceId === LOCAL_SPACE) {
    const loaded: LocalSkillsLoad = sources.localDir
      ? await loadLocalSkills(sources.localDir)
      : { skills: [], warnings: [] };
    warnings.push(...loaded.warnings);
    add(loaded.skills.map(localEntry));
  }
  const ids = spaceId === undefined ? sources.spaceIds : spaceId === LOCAL_SPACE ? [] : [spaceId];
  for (const id of ids) {
    try {
      add(await remoteEntries(sources.service, id));
    } catch (error) {
      if (spaceId !== undefined) throw error;
      warnings.push(`skill space ${id}: ${modelSafeErrorMessage(error)}`);
    }
  }
  return { entries, warnings };
}

/** The skill of an entry: a local one as listed, a remote one from the package store. */
async function loadEntry(sources: LibrarySources, entry: SkillEntry): Promise<LoadedSkill> {
  if (entry.skill)
    return {
      skill: entry.skill,
      entry,
      cacheHit: true,
      verified: true,
      warnings: [...entry.skill.warnings],
    };
  const ref = entry.ref!;
  const loaded = await sources.store!.load(ref, () => sources.service!.client.downloadUrl(ref));
  return {
    skill: loaded.skill,
    entry,
    cacheHit: loaded.cacheHit,
    verified: loaded.verified,
    warnings: loaded.warnings,
  };
}

/** {@link SkillLibrary.spaces}: each configured space as the service names it, else a default. */
async function configuredSpaces(sources: LibrarySources): Promise<SkillSpace[]> {
  if (!sources.service) return [];
  const listed = await sources.service.client.listSpaces().catch(() => [] as SkillSpace[]);
  return sources.spaceIds.map(
    (id) =>
      listed.find((space) => space.space_id === id) ??
      (id === PUBLIC_SPACE
        ? { space_id: id, space_name: 'Public Skills', description: 'Premade skills' }
        : { space_id: id, space_name: id, description: '' }),
  );
}

/**
 * {@link SkillLibrary.forRun}: the named skills, else every local one and the remote ones that
 * match the prompt well (score 65+); each loaded, a failure a warning.
 */
async function skillsForRun(
  sources: LibrarySources,
  prompt: string,
  names: readonly string[],
): Promise<{ skills: Skill[]; warnings: string[] }> {
  const { entries, warnings } = await listEntries(sources);
  const matches = matchSkills(entries, prompt, { names });
  const chosen =
    names.length > 0
      ? matches
      : matches.filter((match) => match.skill.source === 'local' || match.score >= 65);
  const missing = names.filter(
    (name) => !entries.some((entry) => comparableText(entry.name) === comparableText(name)),
  );
  if (missing.length > 0) warnings.push(`skills not found: ${missing.join(', ')}`);
  const skills: Skill[] = [];
  for (const match of names.length > 0
    ? chosen
    : [
        ...entries.filter((e) => e.source === 'local').map((skill) => ({ skill })),
        ...chosen.filter((m) => m.skill.source === 'remote'),
      ]) {
    try {
      const loaded = await loadEntry(sources, match.skill);
      warnings.push(...loaded.warnings.map((warning) => `${loaded.skill.name}: ${warning}`));
      skills.push(loaded.skill);
    } catch (error) {
      warnings.push(`${match.skill.name}: ${modelSafeErrorMessage(error)}`);
    }
  }
  return { skills, warnings };
}

/**
 * Local skills (a directory) and remote ones (configured Skill Service spaces), listed, searched
 * and loaded the same way. Only configured spaces (plus `public` and `local`) can be named.
 */
export function createSkillLibrary(options: SkillLibraryOptions): SkillLibrary {
  const { service, store } = options;
  if (service && !store) throw new Error('a skill package store is required with a Skill Service');
  const userSpaces = service?.spaces.user ?? [];
  const hasPublic = (service?.spaces.public.length ?? 0) > 0;
  const spaceIds = [...userSpaces, ...(hasPublic ? [PUBLIC_SPACE] : [])];
  const sources: LibrarySources = {
    localDir: options.localDir,
    service,
    store,
    spaceIds,
    allowed: [...(options.localDir ? [LOCAL_SPACE] : []), ...spaceIds],
  };
  const list = (spaceId?: string) => listEntries(sources, spaceId);

  return {
    hasLocal: Boolean(options.localDir),
    hasRemote: spaceIds.length > 0,
    spaceIds,
    spaces: () => configuredSpaces(sources),
    list,
    async search(query, searchOptions = {}) {
      const { entries } = await list(searchOptions.spaceId);
      return matchSkills(entries, query, { limit: searchOptions.limit ?? 10 });
    },
    async load(name, spaceId) {
      const wanted = comparableText(name.trim());
      const { entries } = await list(spaceId);
      const entry = entries.find((candidate) => comparableText(candidate.name) === wanted);
      return entry ? loadEntry(sources, entry) : undefined;
    },
    forRun: (prompt, names) => skillsForRun(sources, prompt, names),
  };
}
