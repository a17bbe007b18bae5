import { existsSync } from 'node:fs';
import { readlink } from 'node:fs/promises';
import path from 'node:path';
import { isReserved } from '../util/reserved-dirs.js';

/** Where Linux shows each open file descriptor as a link to the real path of what it has open. */
export const FD_DIR = '/proc/self/fd';

let procFd: boolean | undefined;

/** Whether `/proc/self/fd` is there to ask (Linux with `/proc` mounted): looked for once. */
export function hasProcFd(): boolean {
  procFd ??= process.platform === 'linux' && existsSync(FD_DIR);
  return procFd;
}

/** From now on, `/proc/self/fd` is not asked (it is there, but did not answer). */
export function forgetProcFd(): void {
  procFd = false;
}

/**
 * Whether the file an open descriptor holds really lies inside `root` (a real path) and outside
 * every private folder: what was opened, wherever the path led at the moment it was opened, so a
 * folder on the way swapped for a link out of the workspace between a check and the `open` is
 * caught. True where `/proc/self/fd` is not there (a narrow window remains there); false when it
 * is there but cannot tell.
 */
export async function openedInside(fd: number, root: string): Promise<boolean> {
  if (!hasProcFd()) return true;
  let real: string;
  try {
    real = await readlink(`${FD_DIR}/${fd}`);
  } catch {
    return false;
  }
  const inside = real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
  return inside && !isReserved(real);
}
