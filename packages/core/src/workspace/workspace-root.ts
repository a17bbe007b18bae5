import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { InvocationContext } from '../context/invocation-context.js';
import { localSessionDir } from '../util/env.js';
import { safePathSegment } from '../util/safe-segment.js';
import { registerHostPath } from '../util/sanitize-message.js';

/**
 * The ids of a call, each already encoded as one safe path segment (injective: distinct ids
 * never share a segment; never `/`, `..` or empty — an absent id is `_`), plus the raw context.
 */
export interface WorkspaceRootIds {
  readonly accountId: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly agentId: string;
  /** The invocation context as set by the host, for lookups that need the raw values. */
  readonly context: InvocationContext;
}

/**
 * Where a workspace lives: a directory, or a function of the call's ids (one root per account,
 * say). The function receives ids already encoded as safe path segments, so
 * `` ({ accountId }) => `/srv/workspaces/${accountId}` `` is safe as written, whatever the id.
 */
export type WorkspaceRootOption = string | ((ids: WorkspaceRootIds) => string);

/** The default root: `<session dir>/workspace`, where the session dir honours `AGENTENGINE_UI_DIR` and `KSADK_PROJECT_DIR`. */
export function defaultWorkspaceRoot(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(localSessionDir(env), 'workspace');
}

/** The ids of a context as safe segments. */
export function workspaceRootIds(context: InvocationContext): WorkspaceRootIds {
  return Object.freeze({
    accountId: safePathSegment(context.accountId ?? ''),
    userId: safePathSegment(context.userId ?? ''),
    sessionId: safePathSegment(context.sessionId ?? ''),
    agentId: safePathSegment(context.agentId ?? ''),
    context,
  });
}

/**
 * Roots already made, by the path asked for, with their real path: a call pays for `mkdir` and
 * `realpath` (three thread-pool round trips) only the first time its root is seen. A root removed
 * later is made again by the first write under it; the real path stays the one first resolved, so
 * a root swapped for a symlink afterwards is not followed.
 */
const knownRoots = new Map<string, Promise<string>>();
const MAX_KNOWN_ROOTS = 4096;

/** Resolves the root for a call, creates it (`0700`) when missing, and returns its real path. */
export function resolveWorkspaceRoot(
  option: WorkspaceRootOption,
  context: InvocationContext,
): Promise<string> {
  let root: string;
  try {
    root = path.resolve(typeof option === 'function' ? option(workspaceRootIds(context)) : option);
  } catch (error) {
    return Promise.reject(error);
  }
  // A root seen before answers with the same settled promise: no new one per call.
  return knownRoots.get(root) ?? makeRoot(option, root);
}

async function makeRoot(option: WorkspaceRootOption, root: string): Promise<string> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  const real = await realpath(root);
  if (typeof option === 'string') {
    registerHostPath(root);
    registerHostPath(real);
  }
  if (knownRoots.size >= MAX_KNOWN_ROOTS) knownRoots.delete(knownRoots.keys().next().value!);
  knownRoots.set(root, Promise.resolve(real));
  return real;
}
