/**
 * Normalises requested skill names: a string or a list, each item comma-split and trimmed,
 * empties dropped, de-duplicated case-insensitively (first spelling kept), at most 50.
 */
export function normalizeSkillNames(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const items = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'string') continue;
    for (const part of item.split(',')) {
      // NFKC: a name written decomposed (`café`) is the skill's name.
      const name = part.trim().normalize('NFKC');
      const key = name.toLowerCase();
      if (!name || seen.has(key)) continue;
      seen.add(key);
      out.push(name);
      if (out.length >= 50) return out;
    }
  }
  return out;
}

/** What matching needs of a skill (local or remote). */
export interface MatchableSkill {
  name: string;
  description: string;
  aliases?: readonly string[];
  tags?: readonly string[];
  examples?: readonly string[];
}

/** One match: the skill, its score (0–100) and why. */
export interface SkillMatch<T extends MatchableSkill> {
  skill: T;
  score: number;
  reason: 'exact_name' | 'name' | 'alias' | 'tag' | 'metadata';
}

/** Anything but letters, digits and combining marks (of any script) separates tokens. */
const TOKEN_SPLIT = /[^\p{L}\p{N}\p{M}]+/u;
/** Scripts written without spaces: their runs are matched as overlapping pairs of characters. */
const UNSPACED = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]+$/u;

/** Text as it is compared: NFKC-normalised (decomposed `café` is `café`), lower case. */
export function comparableText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/**
 * Lower-cased tokens of two or more characters, in any script; runs of Chinese, Japanese and
 * Thai as overlapping pairs.
 */
export function skillTokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const token of comparableText(text).split(TOKEN_SPLIT)) {
    const chars = [...token];
    if (chars.length < 2) continue;
    if (UNSPACED.test(token)) {
      for (let index = 0; index + 1 < chars.length; index += 1)
        out.add(chars[index]! + chars[index + 1]!);
    } else out.add(token);
  }
  return out;
}

function scoreOf<T extends MatchableSkill>(
  skill: T,
  prompt: string,
  promptTokens: Set<string>,
): Pick<SkillMatch<T>, 'score' | 'reason'> | undefined {
  const name = comparableText(skill.name);
  if (name && prompt.includes(name)) return { score: 90, reason: 'name' };
  if ((skill.aliases ?? []).some((alias) => alias && prompt.includes(comparableText(alias))))
    return { score: 80, reason: 'alias' };
  if (
    (skill.tags ?? []).some((tag) => {
      const lower = comparableText(tag);
      return lower && (prompt.includes(lower) || promptTokens.has(lower));
    })
  )
    return { score: 65, reason: 'tag' };
  const metadata = skillTokens([skill.description, ...(skill.examples ?? [])].join(' '));
  let overlap = 0;
  for (const token of promptTokens) if (metadata.has(token)) overlap += 1;
  return overlap > 0 ? { score: Math.min(55, 20 + 10 * overlap), reason: 'metadata' } : undefined;
}

/**
 * Ranks skills for a prompt (or picks requested names): requested names keep only exact
 * (case-insensitive) name matches, score 100; otherwise name in the prompt 90, alias 80, tag 65,
 * description/example token overlap `min(55, 20 + 10·overlap)`; no match is left out. Sorted by
 * score, then name; `limit` caps the result.
 */
export function matchSkills<T extends MatchableSkill>(
  skills: readonly T[],
  prompt: string,
  options: { names?: readonly string[]; limit?: number } = {},
): SkillMatch<T>[] {
  const names = new Set((options.names ?? []).map(comparableText));
  const lowerPrompt = comparableText(prompt);
  const tokens = skillTokens(prompt);
  const seen = new Set<string>();
  const matches: SkillMatch<T>[] = [];
  for (const skill of skills) {
    const key = comparableText(skill.name);
    if (!key || seen.has(key)) continue;
    if (names.size > 0) {
      if (names.has(key)) {
        seen.add(key);
        matches.push({ skill, score: 100, reason: 'exact_name' });
      }
      continue;
    }
    const scored = scoreOf(skill, lowerPrompt, tokens);
    if (!scored) continue;
    seen.add(key);
    matches.push({ skill, ...scored });
  }
  matches.sort(
    (a, b) =>
      b.score - a.score ||
      (a.skill.name.toLowerCase() < b.skill.name.toLowerCase()
        ? -1
        : a.skill.name.toLowerCase() > b.skill.name.toLowerCase()
          ? 1
          : 0),
  );
  const limit =
    options.limit === undefined ? matches.length : Math.max(0, Math.floor(options.limit));
  return matches.slice(0, limit);
}

/** Keeps the public skills the allowlist names (case-insensitive); an empty allowlist keeps all. */
export function filterByAllowlist<T extends { name: string }>(
  skills: readonly T[],
  allowlist: readonly string[],
): T[] {
  if (allowlist.length === 0) return skills.filter((skill) => skill.name);
  const allowed = new Set(allowlist.map(comparableText));
  return skills.filter((skill) => allowed.has(comparableText(skill.name)));
}
