import path from 'node:path';
import { KsadkError } from '../errors/ksadk-error.js';
import type { KsadkVariable } from './variables.js';

/**
 * The one reader of `KSADK_*` variables, with one rule for a bad value: a {@link KsadkError}
 * `invalid_config` naming the variable (never a silent fallback). A blank value counts as unset.
 */

/** The words a flag variable may hold (any case); anything else is a configuration error. */
export const FLAG_WORDS = {
  on: ['1', 'true', 'yes', 'on'],
  off: ['0', 'false', 'no', 'off'],
} as const;

/** The first of `names` set to a non-blank value, with that value trimmed. */
export function firstSetVariable(
  env: NodeJS.ProcessEnv,
  names: KsadkVariable | readonly KsadkVariable[],
): readonly [name: string, value: string] | undefined {
  for (const name of typeof names === 'string' ? [names] : names) {
    const value = env[name]?.trim();
    if (value) return [name, value];
  }
  return undefined;
}

/** The error for a variable that does not hold what it must. */
export function invalidVariable(name: string, value: string, expected: string): KsadkError {
  return new KsadkError(
    'invalid_config',
    `${name} must be ${expected}, got ${JSON.stringify(value.slice(0, 40))}`,
    { details: { variable: name } },
  );
}

/**
 * A whole number of at least `min` from the first of `names` set, else `fallback`.
 *
 * @throws {KsadkError} `invalid_config` naming the variable for anything else.
 *
 * @example
 * ```ts
 * wholeNumberFromEnv({ KSADK_SANDBOX_MAX_SESSIONS: '8' }, 'KSADK_SANDBOX_MAX_SESSIONS', 32, 0); // 8
 * ```
 */
export function wholeNumberFromEnv<Fallback extends number | undefined>(
  env: NodeJS.ProcessEnv,
  names: KsadkVariable | readonly KsadkVariable[],
  fallback: Fallback,
  min = 0,
): number | Fallback {
  const set = firstSetVariable(env, names);
  if (!set) return fallback;
  const [name, value] = set;
  if (!/^\d{1,15}$/.test(value) || Number(value) < min)
    throw invalidVariable(name, value, `a whole number of at least ${min}`);
  return Number(value);
}

/**
 * A flag from the first of `names` set: `1`, `true`, `yes`, `on` are true, `0`, `false`, `no`,
 * `off` false (any case), unset is `fallback`.
 *
 * @throws {KsadkError} `invalid_config` naming the variable for any other word.
 */
export function flagFromEnv(
  env: NodeJS.ProcessEnv,
  names: KsadkVariable | readonly KsadkVariable[],
  fallback = false,
): boolean {
  const set = firstSetVariable(env, names);
  if (!set) return fallback;
  const [name, value] = set;
  const word = value.toLowerCase();
  if ((FLAG_WORDS.on as readonly string[]).includes(word)) return true;
  if ((FLAG_WORDS.off as readonly string[]).includes(word)) return false;
  throw invalidVariable(name, value, `one of ${[...FLAG_WORDS.on, ...FLAG_WORDS.off].join(', ')}`);
}

/**
 * The local session directory: `AGENTENGINE_UI_DIR` when set, else
 * `<KSADK_PROJECT_DIR or cwd>/.agentengine/ui`.
 */
export function localSessionDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env['AGENTENGINE_UI_DIR']?.trim();
  if (explicit) return path.resolve(explicit);
  const project = env['KSADK_PROJECT_DIR']?.trim() || process.cwd();
  return path.resolve(project, '.agentengine', 'ui');
}
