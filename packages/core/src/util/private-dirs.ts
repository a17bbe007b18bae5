import os from 'node:os';
import path from 'node:path';
import { localSessionDir } from './env.js';
import { reserveDirectory, reserveNamePattern } from './reserved-dirs.js';

/**
 * Where the library keeps private state by default, in one place: the result store, file memory,
 * skill runs, the skill cache and private sandbox roots. Each component uses these defaults, and
 * {@link reservePrivateDirectories} reserves all of them when a workspace or sandbox is created,
 * so a fresh process never shows one account's state to another before it has used it.
 */

/** The result store: `KSADK_TOOL_RESULT_DIR`, else `<session dir>/tool-results`. */
export function defaultResultDir(env: NodeJS.ProcessEnv = process.env): {
  dir: string;
  configured: boolean;
} {
  const configured = env['KSADK_TOOL_RESULT_DIR']?.trim();
  return {
    dir: path.resolve(configured || path.join(localSessionDir(env), 'tool-results')),
    configured: Boolean(configured),
  };
}

/** File memory: `KSADK_LTM_DIR`, else `<project>/.agentengine/memory`. */
export function defaultMemoryDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env['KSADK_LTM_DIR']?.trim();
  return path.resolve(configured || path.join(path.dirname(localSessionDir(env)), 'memory'));
}

/** Skill runs on local backends: `<session dir>/skill-runs`. */
export function defaultSkillRunsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(localSessionDir(env), 'skill-runs');
}

/** The skill cache: `KSADK_SKILL_CACHE_DIR`, else per user under the OS temporary folder. */
export function defaultSkillCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env['KSADK_SKILL_CACHE_DIR']?.trim();
  if (explicit) return path.resolve(explicit);
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `ksadk-skill-cache-${uid}`);
}

/** Private sandbox roots are `<tmp>/<this prefix><six random characters>` (`mkdtemp`). */
export const SANDBOX_ROOT_PREFIX = 'ksadk-sandbox-root-';
const SANDBOX_ROOT_NAME = /^ksadk-sandbox-root-[A-Za-z0-9]{6}$/;

/**
 * Reserves every private folder the configuration in `env` implies (result store, file memory,
 * skill runs, skill cache, private sandbox roots): workspace tools never list, read, search or
 * copy into a sandbox anything inside them, from the moment this is called. Called when a
 * workspace or sandbox toolset is created; components configured with other folders in code
 * reserve those when they are created.
 */
export function reservePrivateDirectories(env: NodeJS.ProcessEnv = process.env): void {
  reserveDirectory(defaultResultDir(env).dir);
  reserveDirectory(defaultMemoryDir(env));
  reserveDirectory(defaultSkillRunsDir(env));
  reserveDirectory(defaultSkillCacheDir(env));
  reserveNamePattern(os.tmpdir(), SANDBOX_ROOT_NAME);
}
