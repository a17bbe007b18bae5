import path from 'node:path';
import { OUTPUT_WALK_LIMITS, type WorkflowFiles } from '../../../bin/skill-workflow.mjs';
import {
  holdDirectory,
  isRegularFileNoFollow,
  listFilesNoFollow,
  NoFollowError,
  readNoFollow,
  relativeSegments,
  removeNoFollow,
  writeExclusive,
} from '../../util/no-follow-files.js';

/** The run-relative POSIX path of `absolute`, or `undefined` when it is not inside `root`. */
function insideRoot(root: string, absolute: string): string | undefined {
  const relative = path.relative(root, path.resolve(absolute));
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
}

/**
 * The host's file operations in a run folder the sandboxed workflow has written to: nothing
 * outside `root` is touched, no link is followed at any depth, only regular files are read or
 * listed, the bundle is created exclusively (a link planted in its place is replaced, never
 * written through), and the output walk is bounded in files, entries, depth and time.
 */
export function createRunFiles(root: string): WorkflowFiles {
  const relativeOf = (absolute: string): string => {
    const relative = insideRoot(root, absolute);
    if (relative === undefined) throw new NoFollowError('not_found', 'outside the run folder');
    return relative;
  };
  return {
    async makeDirectory(dir) {
      const relative = relativeOf(dir);
      const held = await holdDirectory(root, relativeSegments(relative), { create: true });
      await held.close();
    },
    remove: async (target) => removeNoFollow(root, relativeOf(target)),
    async isFile(file) {
      const relative = insideRoot(root, file);
      return relative !== undefined && isRegularFileNoFollow(root, relative);
    },
    async copyFile(from, to, maxBytes) {
      let data: Buffer;
      try {
        data = await readNoFollow(root, relativeOf(from), maxBytes);
      } catch (error) {
        if (error instanceof NoFollowError) return false;
        throw error;
      }
      try {
        await writeExclusive(root, relativeOf(to), data);
      } catch (error) {
        if (error instanceof NoFollowError) return false;
        throw error;
      }
      return true;
    },
    async listFiles(dir) {
      const relative = insideRoot(root, dir);
      if (relative === undefined) return { files: [], truncated: false };
      return listFilesNoFollow(root, relative, OUTPUT_WALK_LIMITS);
    },
  };
}
