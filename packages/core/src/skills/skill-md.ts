import type * as Yaml from 'yaml';
import { lazyRequire } from '../util/deferred-modules.js';

const yamlParser = lazyRequire<typeof Yaml>('yaml');

/**
 * A skill name, as the Agent Skills reference validator reads it: letters and digits of any
 * script (`report`, `技能`, `мой-навык`, `café`) in runs joined by single hyphens; it must also be
 * lower case ({@link skillNameProblem}) and at most 64 characters, compared after NFKC
 * normalisation.
 */
export const SKILL_NAME_PATTERN = /^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*$/u;
/** Longest skill name, in characters (code points) after NFKC normalisation. */
export const MAX_SKILL_NAME_LENGTH = 64;

/** A name as it is compared: trimmed, NFKC-normalised (`café` written decomposed is `café`). */
export function normalizeSkillName(name: string): string {
  return name.trim().normalize('NFKC');
}

/**
 * What is wrong with a skill name (already normalised), or `undefined`: at most 64 characters,
 * lower case, letters and digits of any script with single hyphens, none first or last.
 */
export function skillNameProblem(name: string): string | undefined {
  const shown = `"${name.slice(0, 80)}"`;
  if (name === '') return 'name must not be empty';
  if ([...name].length > MAX_SKILL_NAME_LENGTH)
    return `name ${shown} is longer than ${MAX_SKILL_NAME_LENGTH} characters`;
  if (name !== name.toLowerCase()) return `name ${shown} must be lower case`;
  if (name.startsWith('-') || name.endsWith('-'))
    return `name ${shown} must not start or end with a hyphen`;
  if (name.includes('--')) return `name ${shown} must not hold consecutive hyphens`;
  if (!SKILL_NAME_PATTERN.test(name))
    return `name ${shown} holds characters other than letters, digits and hyphens`;
  return undefined;
}
/**
 * The file names a skill's instructions may have, in the order they are looked for: the spec's
 * `SKILL.md`, then `skill.md` (which the Agent Skills reference validator accepts too).
 */
export const SKILL_MD_NAMES = ['SKILL.md', 'skill.md'] as const;

/** Whether an archive or folder path names a skill's instructions (`…/SKILL.md`, `…/skill.md`). */
export function isSkillMdPath(file: string): boolean {
  const base = file.slice(file.lastIndexOf('/') + 1);
  return (SKILL_MD_NAMES as readonly string[]).includes(base);
}

/** Longest description. */
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;
/** Longest SKILL.md body kept (characters); a longer body is cut at load and refused by `validateSkill`. */
export const MAX_SKILL_BODY_CHARS = 256 * 1024;

const KNOWN_FIELDS = new Set([
  'name',
  'description',
  'license',
  'compatibility',
  'metadata',
  'allowed-tools',
]);

/** The frontmatter fields of a SKILL.md, validated. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  /** String-to-string map. */
  metadata?: Record<string, string>;
  /** The `allowed-tools` field, split on whitespace. */
  allowedTools?: string[];
}

/** A parsed SKILL.md: its fields, its body, and every problem found (lenient parsing). */
export interface ParsedSkillMd {
  frontmatter: SkillFrontmatter;
  body: string;
  /** Problems that did not stop the skill from loading (strict validation refuses them). */
  warnings: string[];
}

/** Why a SKILL.md cannot be used at all. */
export class SkillMdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SkillMdError';
  }
}

/** Splits off the frontmatter block: BOM and CRLF tolerated; a closing `---` at EOF counts. */
function splitFrontmatter(text: string): { yaml: string | undefined; body: string } {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (!normalized.startsWith('---\n')) return { yaml: undefined, body: normalized };
  const rest = normalized.slice(4);
  const close = /^---[ \t]*$/m.exec(rest);
  if (!close) return { yaml: undefined, body: normalized };
  return {
    yaml: rest.slice(0, close.index),
    body: rest.slice(close.index + close[0].length).replace(/^\n/, ''),
  };
}

/** YAML the way authors write it, and failing that with unquoted `key: a: b` values quoted. */
function parseFrontmatterYaml(yaml: string, warnings: string[]): Record<string, unknown> {
  const options = { maxAliasCount: 10, uniqueKeys: true, prettyErrors: false } as const;
  let parsed: unknown;
  try {
    parsed = yamlParser().parse(yaml, options);
  } catch (error) {
    const requoted = yaml.replace(
      /^([A-Za-z0-9_-]+):[ \t]+([^'"\n].*:.*)$/gm,
      (_, key: string, value: string) => `${key}: ${JSON.stringify(value.trim())}`,
    );
    try {
      parsed = yamlParser().parse(requoted, options);
      warnings.push(
        'frontmatter is not valid YAML (a value with ":" must be quoted); read leniently',
      );
    } catch {
      throw new SkillMdError(
        `frontmatter is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
      );
    }
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw new SkillMdError('frontmatter must be a YAML mapping');
  return parsed as Record<string, unknown>;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : undefined;

/**
 * Parses a SKILL.md leniently: real YAML frontmatter (`name`, `description`, `license`,
 * `compatibility`, `metadata`, `allowed-tools`), BOM and CRLF tolerated. Only a missing
 * description or unusable YAML makes it unusable ({@link SkillMdError}); everything else — a name
 * that breaks the pattern or differs from `expectedName` (the directory), unknown fields, an
 * over-long description or body (cut) — is a warning. {@link validateSkillMd} is the strict form.
 *
 * @example
 * ```ts
 * const { frontmatter, body, warnings } = parseSkillMd('---\nname: pdf\ndescription: Read PDFs.\n---\n# PDF', { expectedName: 'pdf' });
 * ```
 */
export function parseSkillMd(
  source: string,
  options: { expectedName?: string } = {},
): ParsedSkillMd {
  const warnings: string[] = [];
  const { yaml, body: rawBody } = splitFrontmatter(source);
  if (yaml === undefined) throw new SkillMdError('SKILL.md has no frontmatter (--- … ---)');
  const fields = parseFrontmatterYaml(yaml, warnings);
  for (const key of Object.keys(fields))
    if (!KNOWN_FIELDS.has(key)) warnings.push(`unknown frontmatter field "${key.slice(0, 64)}"`);

  const expected =
    options.expectedName === undefined ? undefined : normalizeSkillName(options.expectedName);
  let name = normalizeSkillName(text(fields['name']) ?? '');
  if (!name) {
    if (!expected) throw new SkillMdError('frontmatter has no name');
    warnings.push(`frontmatter has no name; using the directory name "${expected}"`);
    name = expected;
  }
  const problem = skillNameProblem(name);
  if (problem) warnings.push(problem);
  if (expected !== undefined && name !== expected)
    warnings.push(`name "${name.slice(0, 80)}" differs from its directory "${expected}"`);

  let description = text(fields['description']) ?? '';
  if (!description) throw new SkillMdError('frontmatter has no description');
  if (description.length > MAX_SKILL_DESCRIPTION_LENGTH) {
    warnings.push(`description is longer than ${MAX_SKILL_DESCRIPTION_LENGTH} characters; cut`);
    description = description.slice(0, MAX_SKILL_DESCRIPTION_LENGTH);
  }

  const frontmatter: SkillFrontmatter = { name, description };
  const license = text(fields['license']);
  if (license) frontmatter.license = license;
  const compatibility = text(fields['compatibility']);
  if (compatibility) {
    if (compatibility.length > 500) warnings.push('compatibility is longer than 500 characters');
    frontmatter.compatibility = compatibility.slice(0, 500);
  }
  const metadata = fields['metadata'];
  if (metadata !== undefined) {
    if (metadata && typeof metadata === 'object' && !Array.isArray(metadata)) {
      const map: Record<string, string> = Object.create(null);
      for (const [key, value] of Object.entries(metadata)) {
        const item = text(value);
        if (item === undefined) warnings.push(`metadata "${key.slice(0, 64)}" is not a string`);
        else map[key] = item;
      }
      frontmatter.metadata = { ...map };
    } else warnings.push('metadata must be a mapping of strings');
  }
  const allowed = fields['allowed-tools'];
  if (allowed !== undefined) {
    if (Array.isArray(allowed) && allowed.some((item) => typeof item !== 'string'))
      warnings.push('allowed-tools list items must all be strings');
    else if (!Array.isArray(allowed) && typeof allowed !== 'string')
      warnings.push('allowed-tools must be a string or a list of strings');
    const list = Array.isArray(allowed)
      ? allowed.map(text).filter((item): item is string => Boolean(item))
      : (text(allowed) ?? '').split(/\s+/).filter(Boolean);
    frontmatter.allowedTools = list;
  }

  let body = rawBody;
  if (body.length > MAX_SKILL_BODY_CHARS) {
    warnings.push(`body is longer than ${MAX_SKILL_BODY_CHARS} characters; cut`);
    body = body.slice(0, MAX_SKILL_BODY_CHARS);
  }
  return { frontmatter, body, warnings };
}

/** The strict result of {@link validateSkillMd}: every problem, nothing lenient. */
export interface SkillValidation {
  ok: boolean;
  problems: string[];
}

/**
 * Strict validation for authors and publishing: every warning {@link parseSkillMd} would give is
 * a problem here.
 *
 * @example
 * ```ts
 * const { ok, problems } = validateSkillMd(source, { expectedName: 'pdf' });
 * ```
 */
export function validateSkillMd(
  source: string,
  options: { expectedName?: string } = {},
): SkillValidation {
  try {
    const { warnings } = parseSkillMd(source, options);
    return { ok: warnings.length === 0, problems: warnings };
  } catch (error) {
    return { ok: false, problems: [(error as Error).message] };
  }
}
