import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** A short, unique temporary name next to `target` (so moving it into place stays on one file system). */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.ksadk-${randomBytes(8).toString('hex')}.tmp`);
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

/** Replaces `target` with `content` atomically: readers see the old file or the new one, never half of it. */
export async function replaceFileAtomically(
  target: string,
  content: string,
  mode?: number,
): Promise<void> {
  const temp = tempPathFor(target);
  try {
    await writeNewFile(temp, content, mode);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
