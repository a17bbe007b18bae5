import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { KsadkError } from '../errors/ksadk-error.js';
import { SKILL_MD_NAMES } from './skill-md.js';

/** What the assembly's skills slot holds: local skill tools, `execute_skills`, or nothing. */
export type SkillsMode = 'local' | 'sandbox' | 'off';

const DISABLED = new Set(['', 'disabled', 'none', 'off']);

/** The directory local skills are read from for mode inference and the local tools. */
export function localSkillsDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env['KSADK_LOCAL_SKILLS_DIR']?.trim() || env['KSADK_SKILL_CACHE_DIR']?.trim();
  if (explicit) return path.resolve(explicit);
  return path.resolve(env['KSADK_PROJECT_DIR']?.trim() || process.cwd(), 'skills');
}

function hasSkillDirectory(dir: string): boolean {
  try {
    return readdirSync(dir, { withFileTypes: true }).some(
      (entry) =>
        entry.isDirectory() &&
        SKILL_MD_NAMES.some((name) => existsSync(path.join(dir, entry.name, name))),
    );
  } catch {
    return false;
  }
}

/**
 * The skills mode: `KSADK_SKILLS_MODE` (`local`, `sandbox`, `off`/`none`, or
 * `auto`, the default). In `auto`: a present `KSADK_SKILL_RUNTIME_BACKEND` decides (a backend →
 * `sandbox`; empty or disabled → `off`, which also stops the local inference); then a
 * `KSADK_SANDBOX_BACKEND` that is not disabled, or a sandbox template id → `sandbox`; then a
 * skills directory (`KSADK_LOCAL_SKILLS_DIR`, `KSADK_SKILL_CACHE_DIR`, `<project>/skills`) with a
 * skill in it → `local`; else `off`.
 *
 * @throws {KsadkError} `invalid_config` for an unknown `KSADK_SKILLS_MODE`.
 */
export function resolveSkillsMode(env: NodeJS.ProcessEnv = process.env): {
  mode: SkillsMode;
  source: string;
} {
  const raw = (env['KSADK_SKILLS_MODE'] ?? '').trim().toLowerCase();
  if (raw === 'local' || raw === 'sandbox') return { mode: raw, source: 'KSADK_SKILLS_MODE' };
  if (raw === 'off' || raw === 'none' || raw === 'disabled')
    return { mode: 'off', source: 'KSADK_SKILLS_MODE' };
  if (raw !== '' && raw !== 'auto')
    throw new KsadkError(
      'invalid_config',
      `KSADK_SKILLS_MODE must be one of auto, local, sandbox, off; got ${JSON.stringify(raw.slice(0, 40))}`,
    );
  const runtime = env['KSADK_SKILL_RUNTIME_BACKEND'];
  if (runtime !== undefined)
    return DISABLED.has(runtime.trim().toLowerCase())
      ? { mode: 'off', source: 'KSADK_SKILL_RUNTIME_BACKEND' }
      : { mode: 'sandbox', source: 'KSADK_SKILL_RUNTIME_BACKEND' };
  const sandbox = env['KSADK_SANDBOX_BACKEND']?.trim().toLowerCase();
  if (sandbox && !DISABLED.has(sandbox))
    return { mode: 'sandbox', source: 'KSADK_SANDBOX_BACKEND' };
  for (const name of ['KSADK_SANDBOX_TEMPLATE_ID', 'KSADK_SKILL_RUNTIME_TEMPLATE_ID'])
    if (env[name]?.trim()) return { mode: 'sandbox', source: name };
  if (hasSkillDirectory(localSkillsDir(env))) return { mode: 'local', source: 'skills directory' };
  return { mode: 'off', source: 'default' };
}
