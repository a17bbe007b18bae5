import { realpathSync } from 'node:fs';
import path from 'node:path';
import { registerHostPath } from './sanitize-message.js';

const reserved = new Set<string>();
/** Reserved paths whose real path is reserved too. */
const withRealPath = new Set<string>();

/**
 * Reserves a directory the library keeps private state in (the result store, a memory folder, a
 * skill cache): workspace tools never list, search, read or write inside it, even when a
 * workspace root contains it (a project folder used as the workspace, say). Process-wide.
 *
 * @example
 * ```ts
 * reserveDirectory('/srv/app/.agentengine');
 * ```
 */
export function reserveDirectory(dir: string): void {
  const resolved = path.resolve(dir);
  // Reserved already, real path included: nothing to look up again.
  if (withRealPath.has(resolved)) return;
  reserved.add(resolved);
  // Private state's location is never told to a model either.
  registerHostPath(resolved);
  try {
    const real = realpathSync(resolved);
    reserved.add(real);
    registerHostPath(real);
    withRealPath.add(resolved);
  } catch {
    // Not there yet: where it will be is the real path of its nearest existing ancestor plus
    // the rest (a project folder reached through a link, say), reserved as well.
    const future = futureRealPath(resolved);
    if (future && future !== resolved) {
      reserved.add(future);
      registerHostPath(future);
    }
  }
}

/** The real path a missing `dir` will have: its nearest existing ancestor's, plus the rest. */
function futureRealPath(dir: string): string | undefined {
  const rest: string[] = [];
  let current = dir;
  for (let depth = 0; depth < 256; depth += 1) {
    try {
      return path.join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return undefined;
      rest.push(path.basename(current));
      current = parent;
    }
  }
  return undefined;
}

/** Folders whose entries are reserved when their name matches a pattern: folder → patterns. */
const reservedNames = new Map<string, RegExp[]>();

/**
 * Reserves every entry of `dir` whose name matches `pattern` (private sandbox roots under the
 * temporary folder, made one per session), without remembering each one.
 */
export function reserveNamePattern(dir: string, pattern: RegExp): void {
  const folders = [path.resolve(dir)];
  try {
    folders.push(realpathSync(folders[0]!));
  } catch {
    // Not there (yet).
  }
  for (const folder of folders) {
    const patterns = reservedNames.get(folder) ?? [];
    if (!patterns.some((known) => known.source === pattern.source)) patterns.push(pattern);
    reservedNames.set(folder, patterns);
  }
}

function matchesReservedName(absolute: string): boolean {
  for (const [folder, patterns] of reservedNames) {
    if (!absolute.startsWith(folder + path.sep)) continue;
    const name = absolute.slice(folder.length + 1).split(path.sep, 1)[0]!;
    if (patterns.some((pattern) => pattern.test(name))) return true;
  }
  return false;
}

/** Whether `absolute` (a real path) is a reserved directory or inside one. */
export function isReserved(absolute: string): boolean {
  for (const dir of reserved) {
    if (absolute === dir || absolute.startsWith(dir + path.sep)) return true;
  }
  return reservedNames.size > 0 && matchesReservedName(absolute);
}
