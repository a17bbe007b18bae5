import type { RE2JS } from 're2js';
import { workspaceFailure } from '../failure.js';

/** Longest glob accepted. */
export const MAX_GLOB_CHARS = 256;
/** Most wildcards (`*`, `**`, `?`, classes, brace alternatives) in one glob. */
export const MAX_GLOB_WILDCARDS = 32;

/** Why a glob was refused. */
export interface GlobError {
  readonly ok: false;
  readonly error_type: 'invalid_glob';
  readonly error_message: string;
}

/** A compiled glob: matches a relative path (`/` separators) in time linear in its length. */
export type GlobMatcher = (relativePath: string) => boolean;

const quoteChar = (char: string): string => (/[\\.+*?()|[\]{}^$]/.test(char) ? `\\${char}` : char);

/**
 * Translates a glob into RE2 syntax (matched whole, linear time: no backtracking):
 * `*` any run of characters but `/`; `?` one character but `/`; `**` as a whole segment any
 * number of segments (`a/**\/b` matches `a/b`); `[abc]`, `[a-z]`, `[!x]`/`[^x]` classes;
 * `{a,b}` alternatives (nested allowed); `\x` a literal `x`. Anything else is literal.
 */
export function globToRe2(glob: string): string | GlobError {
  let out = '';
  let wildcards = 0;
  const braces: number[] = [];
  const fail = (message: string): GlobError => workspaceFailure('invalid_glob', message);
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index]!;
    if (char === '\\') {
      const next = glob[index + 1];
      if (next === undefined) return fail('glob ends with a lone backslash');
      out += quoteChar(next);
      index += 1;
      continue;
    }
    if (char === '*') {
      wildcards += 1;
      if (glob[index + 1] === '*') {
        let end = index;
        while (glob[end + 1] === '*') end += 1;
        const segmentStart = index === 0 || glob[index - 1] === '/';
        const segmentEnd = end + 1 === glob.length || glob[end + 1] === '/';
        index = end;
        if (segmentStart && segmentEnd) {
          if (glob[index + 1] === '/') {
            // `**/`: zero or more whole segments.
            out += '(?:[^/]*/)*';
            index += 1;
          } else if (out.endsWith('/')) {
            // a trailing `/**`: the directory itself or anything below it.
            out = `${out.slice(0, -1)}(?:/.*)?`;
          } else {
            out += '.*';
          }
          continue;
        }
      }
      out += '[^/]*';
      continue;
    }
    if (char === '?') {
      wildcards += 1;
      out += '[^/]';
      continue;
    }
    if (char === '[') {
      const close = glob.indexOf(']', index + 2);
      if (close < 0) {
        out += '\\[';
        continue;
      }
      wildcards += 1;
      let body = glob.slice(index + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      if (body === '') return fail('empty character class in glob');
      const escaped = body.replace(/[\\[\]^]/g, (c) => `\\${c}`);
      out += negated ? `[^/${escaped}]` : `[${escaped}]`;
      index = close;
      continue;
    }
    if (char === '{') {
      braces.push(index);
      out += '(?:';
      continue;
    }
    if (char === ',' && braces.length > 0) {
      wildcards += 1;
      out += '|';
      continue;
    }
    if (char === '}' && braces.length > 0) {
      braces.pop();
      out += ')';
      continue;
    }
    out += quoteChar(char);
  }
  if (braces.length > 0) return fail('glob has an unclosed {');
  if (wildcards > MAX_GLOB_WILDCARDS) {
    return fail(`glob has more than ${MAX_GLOB_WILDCARDS} wildcards`);
  }
  return out;
}

let re2: Promise<typeof import('re2js')> | undefined;

/**
 * Compiles a glob into a linear-time matcher (RE2), or says why it cannot: longer than 256
 * characters, more than 32 wildcards, malformed. The one glob matcher of list, status and search.
 *
 * @example
 * ```ts
 * const matcher = await compileGlob('src/**\/*.ts');
 * if (typeof matcher === 'function') matcher('src/a/b.ts'); // true
 * ```
 */
export async function compileGlob(glob: string): Promise<GlobMatcher | GlobError> {
  if (glob.length > MAX_GLOB_CHARS) {
    return workspaceFailure('invalid_glob', `glob is longer than ${MAX_GLOB_CHARS} characters`);
  }
  const source = globToRe2(glob);
  if (typeof source !== 'string') return source;
  re2 ??= import('re2js');
  const { RE2JS } = await re2;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(`^(?:${source})$`, RE2JS.DOTALL);
  } catch (error) {
    return workspaceFailure(
      'invalid_glob',
      `invalid glob: ${error instanceof Error ? error.message.slice(0, 200) : 'unreadable'}`,
    );
  }
  return (relativePath) => compiled.matches(relativePath);
}
