import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { DirectoryEscapeError, type PinnedDir } from './pinned-dir.js';

/** A short, unique temporary file name (created next to its target, so moving it stays on one file system). */
export function tempName(): string {
  return `.ksadk-${randomBytes(8).toString('hex')}.tmp`;
}

/** Creates `file`, failing if anything (even a symlink) already has that name. */
export async function writeNewFile(file: string, content: string, mode = 0o600): Promise<void> {
  const handle = await open(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  );
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Replaces the entry `name` of a pinned directory with `content` atomically: readers see the old
 * file or the new one, never half of it. The temporary is removed on every failure.
 *
 * @throws {DirectoryEscapeError} when the directory left the workspace before the rename.
 */
export async function replaceFileAtomically(
  dir: PinnedDir,
  name: string,
  content: string,
  mode?: number,
): Promise<void> {
  const temp = dir.entry(tempName());
  try {
    await writeNewFile(temp, content, mode);
    if (!(await dir.stillInside())) throw new DirectoryEscapeError();
    await rename(temp, dir.entry(name));
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
