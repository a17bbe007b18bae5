import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { InvocationContext } from '../../context/invocation-context.js';
import { localSessionDir } from '../../util/env.js';

/** Where a workspace lives: a directory, or a function of the invocation context (one root per account, say). */
export type WorkspaceRootOption = string | ((context: InvocationContext) => string);

/** The default root: `<session dir>/workspace`, where the session dir honours `AGENTENGINE_UI_DIR` and `KSADK_PROJECT_DIR`. */
export function defaultWorkspaceRoot(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(localSessionDir(env), 'workspace');
}

/** Resolves the root for a call, creates it when missing, and returns its real path. */
export async function resolveWorkspaceRoot(
  option: WorkspaceRootOption,
  context: InvocationContext,
): Promise<string> {
  const root = path.resolve(typeof option === 'function' ? option(context) : option);
  await mkdir(root, { recursive: true });
  return realpath(root);
}
