import { KsadkError } from '../errors/ksadk-error.js';

/** Parent variables copied when set: locale and time zone only. */
const LOCALE_VARIABLES = ['LANG', 'LC_ALL', 'TZ'] as const;
/** `PATH` when the parent has none. */
const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';
// A name the C library can hold: no `=`, no NUL, not empty.
const VALID_NAME = /^[^=\0]+$/;

/** Why an environment was refused, or `undefined` when every entry is valid. */
export function invalidEnvReason(
  env: Readonly<Record<string, string>> | undefined,
): string | undefined {
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!VALID_NAME.test(name)) return `invalid variable name ${JSON.stringify(name.slice(0, 64))}`;
    if (typeof value !== 'string' || value.includes('\0'))
      return `variable ${name.slice(0, 64)} must be a string without NUL`;
  }
  return undefined;
}

/** Throws `KsadkError('invalid_config')` for a session or backend environment with bad entries. */
export function assertValidEnv(
  env: Readonly<Record<string, string>> | undefined,
  what: string,
): void {
  const reason = invalidEnvReason(env);
  if (reason) throw new KsadkError('invalid_config', `${what}: ${reason}`);
}

/** What a local command's environment is built from. */
export interface ChildEnvSources {
  /** The host process's environment (only `PATH`, the locale and `passEnv` are read). */
  parent: NodeJS.ProcessEnv;
  /** Names copied from `parent` when set. */
  passEnv: readonly string[];
  /** `HOME` (the session root). */
  home: string;
  session?: Readonly<Record<string, string>>;
  command?: Readonly<Record<string, string>>;
}

/**
 * A local command's environment, minimal and explicit: `PATH` (the parent's), `HOME`, `LANG`,
 * `LC_ALL` and `TZ` when the parent sets them, the `passEnv` names, then the session's and the
 * command's variables. Nothing else of the parent's environment reaches the command.
 */
export function buildChildEnv(sources: ChildEnvSources): Record<string, string> {
  const env: Record<string, string> = {
    PATH: sources.parent['PATH'] || FALLBACK_PATH,
    HOME: sources.home,
  };
  for (const name of [...LOCALE_VARIABLES, ...sources.passEnv]) {
    const value = sources.parent[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...sources.session, ...sources.command };
}
