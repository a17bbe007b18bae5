import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { findSkillMd, MAX_SKILL_MD_BYTES } from './local-skills.js';
import { type SkillValidation, validateSkillMd } from './skill-md.js';

/**
 * Validates a skill directory strictly, for authors and publishing: its SKILL.md must exist,
 * parse, and have no problem at all (name pattern, name equal to the directory, description
 * 1–1024 characters, known fields only, body within the cap).
 *
 * @example
 * ```ts
 * const { ok, problems } = await validateSkill('./skills/report');
 * if (!ok) console.error(problems.join('\n'));
 * ```
 */
export async function validateSkill(dir: string): Promise<SkillValidation> {
  let source: string;
  try {
    const file = await findSkillMd(dir);
    if (!file) return { ok: false, problems: ['SKILL.md not found'] };
    // Only a regular file is read: a FIFO would hang the read, a link lead elsewhere.
    const stats = await lstat(file);
    if (!stats.isFile()) return { ok: false, problems: ['SKILL.md is not a regular file'] };
    if (stats.size > MAX_SKILL_MD_BYTES)
      return { ok: false, problems: [`SKILL.md is larger than ${MAX_SKILL_MD_BYTES} bytes`] };
    source = await readFile(file, 'utf8');
  } catch {
    return { ok: false, problems: ['SKILL.md not found'] };
  }
  return validateSkillMd(source, { expectedName: path.basename(path.resolve(dir)) });
}
