import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { echoValue, modelSafeErrorMessage, registerHostPath } from '../util/sanitize-message.js';
import { type ParsedSkillMd, parseSkillMd, SKILL_MD_NAMES } from './skill-md.js';

/** Largest SKILL.md read. */
export const MAX_SKILL_MD_BYTES = 1024 * 1024;
/** Most resource files listed per folder (`scripts/`, `references/`, `assets/`). */
export const MAX_RESOURCES_PER_FOLDER = 200;
/** Most skills read from one directory. */
export const MAX_SKILLS_PER_DIRECTORY = 500;
const RESOURCE_DEPTH = 4;

/** The resource folders of a skill, as skill-relative paths. */
export interface SkillResources {
  scripts: string[];
  references: string[];
  assets: string[];
}

/** A skill ready to use: its SKILL.md, its files, where it came from. */
export interface Skill {
  name: string;
  description: string;
  frontmatter: ParsedSkillMd['frontmatter'];
  /** The SKILL.md body (the instructions). */
  body: string;
  /** Host directory of the skill. Never shown to a model. */
  root: string;
  resources: SkillResources;
  /** Whether `scripts/run-workflow.sh` exists (the workflow entry point). */
  hasWorkflow: boolean;
  source: 'local' | 'remote';
  /** Problems that did not stop it loading. */
  warnings: string[];
}

/** Regular files under `dir` (no symlinks followed), skill-relative, sorted, capped. */
async function listResourceFiles(root: string, folder: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (relative: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(root, relative), { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (out.length >= MAX_RESOURCES_PER_FOLDER) return;
      const child = `${relative}/${entry.name}`;
      if (entry.isFile()) out.push(child);
      else if (entry.isDirectory() && depth < RESOURCE_DEPTH) await walk(child, depth + 1);
    }
  };
  const stat = await lstat(path.join(root, folder)).catch(() => undefined);
  if (stat?.isDirectory()) await walk(folder, 1);
  return out;
}

/** The skill's instructions file (`SKILL.md`, else `skill.md`), or `undefined` when it has none. */
export async function findSkillMd(root: string): Promise<string | undefined> {
  for (const name of SKILL_MD_NAMES) {
    const file = path.join(root, name);
    if (await lstat(file).catch(() => undefined)) return file;
  }
  return undefined;
}

/** Reads the skill's SKILL.md: a regular file (not a symlink), at most {@link MAX_SKILL_MD_BYTES}. */
async function readSkillMd(root: string): Promise<string> {
  const file = await findSkillMd(root);
  if (!file) throw new Error('SKILL.md not found');
  const stat = await lstat(file);
  if (!stat.isFile()) throw new Error('SKILL.md is not a regular file');
  if (stat.size > MAX_SKILL_MD_BYTES)
    throw new Error(`SKILL.md is larger than ${MAX_SKILL_MD_BYTES} bytes`);
  return readFile(file, 'utf8');
}

/**
 * Loads one skill directory leniently: SKILL.md parsed and validated (problems become
 * `warnings`), resources listed. `expectedName` (the directory name for local skills) must match
 * the frontmatter name, or a warning says so. Throws when the skill is unusable.
 */
export async function loadSkillDirectory(
  root: string,
  options: { expectedName?: string; source?: Skill['source'] } = {},
): Promise<Skill> {
  const parsed = parseSkillMd(await readSkillMd(root), options);
  const [scripts, references, assets] = await Promise.all(
    ['scripts', 'references', 'assets'].map((folder) => listResourceFiles(root, folder)),
  );
  const workflow = await lstat(path.join(root, 'scripts', 'run-workflow.sh')).catch(
    () => undefined,
  );
  return {
    name: parsed.frontmatter.name,
    description: parsed.frontmatter.description,
    frontmatter: parsed.frontmatter,
    body: parsed.body,
    root,
    resources: { scripts: scripts!, references: references!, assets: assets! },
    hasWorkflow: Boolean(workflow?.isFile()),
    source: options.source ?? 'local',
    warnings: parsed.warnings,
  };
}

/** What {@link loadLocalSkills} found: the skills, and every problem with the ones it skipped. */
export interface LocalSkillsLoad {
  skills: Skill[];
  warnings: string[];
}

/**
 * Loads every skill of a directory: each immediate subdirectory (sorted, symlinks skipped) with
 * a SKILL.md is one skill, named by its directory. Unusable skills and duplicate names are
 * skipped with a warning; a missing directory gives no skills.
 *
 * @example
 * ```ts
 * const { skills, warnings } = await loadLocalSkills('./skills');
 * ```
 */
export async function loadLocalSkills(dir: string): Promise<LocalSkillsLoad> {
  const warnings: string[] = [];
  registerHostPath(path.resolve(dir));
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return { skills: [], warnings };
  }
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  if (names.length > MAX_SKILLS_PER_DIRECTORY) {
    warnings.push(`more than ${MAX_SKILLS_PER_DIRECTORY} skill directories; the rest are skipped`);
    names.length = MAX_SKILLS_PER_DIRECTORY;
  }
  const skills: Skill[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    const root = path.join(dir, name);
    if (!(await findSkillMd(root))) continue;
    try {
      const skill = await loadSkillDirectory(root, { expectedName: name });
      for (const warning of skill.warnings) warnings.push(`skill "${name}": ${warning}`);
      const key = skill.name.toLowerCase();
      if (seen.has(key)) {
        warnings.push(`skill "${name}": the name "${skill.name}" is already taken; skipped`);
        continue;
      }
      seen.add(key);
      skills.push(skill);
    } catch (error) {
      warnings.push(`skill "${echoValue(name)}": ${modelSafeErrorMessage(error)}; skipped`);
    }
  }
  return { skills, warnings };
}
