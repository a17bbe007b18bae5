import { createHash } from 'node:crypto';

const MAX_LENGTH = 64;
const VALID = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

function shortHash(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 8);
}

function withSuffix(base: string, suffix: string): string {
  return `${base.slice(0, MAX_LENGTH - suffix.length - 1)}_${suffix}`;
}

/**
 * Makes any name a valid model-facing tool name, `^[A-Za-z_][A-Za-z0-9_-]{0,63}$` (the
 * strictest of OpenAI, Gemini and LangChain): invalid characters become `_`, a leading digit or
 * dash gets a `_` prefix, and a name that had to be cut to 64 characters ends in `_` plus an
 * 8-hex hash of the original, so distinct long names stay distinct. Valid names are unchanged.
 *
 * @example
 * ```ts
 * sanitizeToolName('weather.forecast'); // 'weather_forecast'
 * ```
 */
export function sanitizeToolName(name: string): string {
  if (VALID.test(name)) return name;
  let out = name.replace(/[^A-Za-z0-9_-]/g, '_');
  if (!/^[A-Za-z_]/.test(out)) out = `_${out}`;
  return out.length > MAX_LENGTH ? withSuffix(out, shortHash(name)) : out;
}

/** A problem found while registering names. */
export interface ToolNameConflict {
  /** `collision`: a different original sanitised to a taken name and got a hash suffix. `duplicate`: the same original registered twice (the second is refused). */
  readonly kind: 'collision' | 'duplicate';
  readonly original: string;
  /** The name the original got (`collision`), or the name it already had (`duplicate`). */
  readonly name: string;
  /** The original that already held the name. */
  readonly existing: string;
}

/** Names handed out for one tool list, with their originals. */
export interface ToolNameRegistry {
  /**
   * Registers an original name and returns the model-facing name, or `undefined` when the same
   * original was already registered (reported as a `duplicate` conflict, never shadowed).
   * `desired` is the name wanted for it (default: the original itself), sanitised; when it is
   * taken by another original, a hash suffix is added and the collision reported.
   */
  register(original: string, desired?: string): string | undefined;
  /** The original name behind a model-facing name. */
  originalOf(name: string): string | undefined;
  /** The model-facing name given to an original. */
  nameOf(original: string): string | undefined;
  /** Every collision and duplicate so far. */
  readonly conflicts: readonly ToolNameConflict[];
}

/**
 * Creates a registry that sanitises names for one tool list, keeps the reverse map, and
 * reports collisions (two originals that sanitise alike) and duplicates instead of silently
 * shadowing one tool with another.
 *
 * @example
 * ```ts
 * const names = createToolNameRegistry();
 * names.register('search.web'); // 'search_web'
 * names.register('search_web'); // 'search_web_3f2a…' (collision reported)
 * names.originalOf('search_web'); // 'search.web'
 * ```
 */
export function createToolNameRegistry(): ToolNameRegistry {
  const byName = new Map<string, string>();
  const byOriginal = new Map<string, string>();
  const conflicts: ToolNameConflict[] = [];
  return {
    register(original, desired = original) {
      const taken = byOriginal.get(original);
      if (taken !== undefined) {
        conflicts.push({ kind: 'duplicate', original, name: taken, existing: original });
        return undefined;
      }
      let name = sanitizeToolName(desired);
      const holder = byName.get(name);
      if (holder !== undefined) {
        let salt = 0;
        const base = name;
        do {
          name = withSuffix(base, shortHash(`${original}#${salt}`));
          salt += 1;
        } while (byName.has(name));
        conflicts.push({ kind: 'collision', original, name, existing: holder });
      }
      byName.set(name, original);
      byOriginal.set(original, name);
      return name;
    },
    originalOf: (name) => byName.get(name),
    nameOf: (original) => byOriginal.get(original),
    conflicts,
  };
}
