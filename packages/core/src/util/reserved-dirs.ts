import { realpathSync } from 'node:fs';
import path from 'node:path';
import { registerHostPath } from './sanitize-message.js';

const reserved = new Set<string>();

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
  reserved.add(resolved);
  // Private state's location is never told to a model either.
  registerHostPath(resolved);
  try {
    const real = realpathSync(resolved);
    reserved.add(real);
    registerHostPath(real);
  } catch {
    // Not there yet: its resolved path stands for it until it is reserved again once created.
  }
}

/** Whether `absolute` (a real path) is a reserved directory or inside one. */
export function isReserved(absolute: string): boolean {
  if (reserved.size === 0) return false;
  for (const dir of reserved) {
    if (absolute === dir || absolute.startsWith(dir + path.sep)) return true;
  }
  return false;
}
