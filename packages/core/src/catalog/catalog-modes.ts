import { KsadkError } from '../errors/ksadk-error.js';

/** How built-in tools reach the model: not at all, directly, through `tool_dispatcher`, or through `tool_search` + `tool_dispatcher`. */
export type BuiltinToolsMode = 'off' | 'direct' | 'dispatcher' | 'deferred';

/** Built-in tool profiles: every default group, or the focused coding set. */
export type BuiltinToolsProfile = 'default' | 'coding';

/** The environment variables of the catalogue. */
export const BUILTIN_TOOLS_ENV = {
  mode: 'KSADK_BUILTIN_TOOLS_MODE',
  profile: 'KSADK_BUILTIN_TOOLS_PROFILE',
} as const;

const MODES: Record<string, BuiltinToolsMode> = {
  off: 'off',
  none: 'off',
  disabled: 'off',
  direct: 'direct',
  focused: 'direct',
  dispatcher: 'dispatcher',
  dispatch: 'dispatcher',
  deferred: 'deferred',
  search: 'deferred',
};

/**
 * Parses a built-in tools mode (trimmed, case-insensitive; an empty value is `off`).
 *
 * @throws {KsadkError} `invalid_config` naming `source` and the allowed values.
 */
export function parseBuiltinToolsMode(value: string, source: string): BuiltinToolsMode {
  const normalized = value.trim().toLowerCase();
  if (normalized === '') return 'off';
  const mode = MODES[normalized];
  if (!mode) {
    throw new KsadkError(
      'invalid_config',
      `${source} must be one of off, direct, dispatcher, deferred (aliases: none/disabled → off, focused → direct, dispatch → dispatcher, search → deferred); got "${value}".`,
    );
  }
  return mode;
}

/**
 * Parses a profile (trimmed, case-insensitive; empty → `default`).
 *
 * @throws {KsadkError} `invalid_config` naming `source` and the allowed values.
 */
export function parseBuiltinToolsProfile(value: string, source: string): BuiltinToolsProfile {
  const normalized = value.trim().toLowerCase();
  if (normalized === '' || normalized === 'default') return 'default';
  if (normalized === 'coding') return 'coding';
  throw new KsadkError(
    'invalid_config',
    `${source} must be one of default, coding; got "${value}".`,
  );
}
