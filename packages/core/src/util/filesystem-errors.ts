import { gatewayFailure, type ToolErrorResult } from '../gateway/results.js';
import type { GatewayErrorType } from '../gateway/tool-error-types.js';

/** Errors of the host's file permissions and disks, whatever the tool. */
const HOST_LIMITS: Readonly<
  Record<string, readonly [type: GatewayErrorType, what: (place: string) => string]>
> = {
  EACCES: [
    'permission_denied',
    (place) => `the host's file permissions do not allow this in ${place}; ask the user`,
  ],
  EPERM: [
    'permission_denied',
    (place) => `the host's file permissions do not allow this in ${place}; ask the user`,
  ],
  EROFS: ['permission_denied', (place) => `${place} is on a read-only file system; ask the user`],
  ENOSPC: ['no_space_left', (place) => `the disk holding ${place} is full`],
  EDQUOT: ['no_space_left', (place) => `the disk quota for ${place} is used up`],
};

/** The errno code of `error`, if it has one (a throwing getter reads as none). */
export const codeOf = (error: unknown): string | undefined => {
  try {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The structured result for a permission or full-disk error (`permission_denied`,
 * `no_space_left`) met in `place` ("the workspace", "the skill's files"…), or `undefined` for any
 * other error. The message names no path: an errno message's is absolute and would reveal where
 * the host keeps things.
 */
export function hostLimitResult(error: unknown, place: string): ToolErrorResult | undefined {
  // The errno is often a few causes down (a sandbox `setup` error wrapping a write's error).
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current != null; depth += 1) {
    const code = codeOf(current);
    if (code !== undefined && Object.hasOwn(HOST_LIMITS, code)) {
      const [type, what] = HOST_LIMITS[code]!;
      return gatewayFailure(type, what(place));
    }
    current = causeOf(current);
  }
  return undefined;
}

/** Causes followed at most (a cycle of causes ends there too). */
const MAX_CAUSE_DEPTH = 5;

function causeOf(error: unknown): unknown {
  try {
    return (error as { cause?: unknown }).cause;
  } catch {
    return undefined;
  }
}
