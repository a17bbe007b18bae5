import { stat } from 'node:fs/promises';
import type { InvocationContext } from '../context/invocation-context.js';
import { reservePrivateDirectories } from '../util/private-dirs.js';
import { createReadStateStore, type ReadStateStore } from './read-state.js';
import { splitLines } from './text-lines.js';
import {
  defaultWorkspaceRoot,
  resolveWorkspaceRoot,
  type WorkspaceRootOption,
} from './workspace-root.js';

/** The catalogue group of the workspace tools. */
export const WORKSPACE_GROUP = 'workspace';
/** The boundary the workspace tools report. */
export const WORKSPACE_BOUNDARY = 'workspace_root';

/** Options for {@link createWorkspaceToolset}. */
export interface WorkspaceOptions {
  /** The root, or a function of the invocation context. @default `<session dir>/workspace` */
  root?: WorkspaceRootOption;
  /** Largest file a write may create, in bytes. @default 10 MiB */
  maxWriteBytes?: number;
  /** Permissions of files the tools create (an existing file keeps its own). @default 0o600 */
  fileMode?: number;
  /** Permissions of directories the tools create. @default 0o700 */
  dirMode?: number;
  /** Read-state records kept (least recently used go first). @default 10000 */
  maxReadStateEntries?: number;
  /** Use `rg` for search when it is on PATH. @default true */
  useRipgrep?: boolean;
  /** The environment for defaults. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** Shared state of one workspace toolset. */
export interface WorkspaceSetup {
  rootFor(context: InvocationContext): Promise<string>;
  readonly readState: ReadStateStore;
  readonly maxWriteBytes: number;
  readonly fileMode: number;
  readonly dirMode: number;
  readonly useRipgrep: boolean;
  /** The read-state key of a call. */
  keyOf(context: InvocationContext): { account: string; session: string };
}

/** Builds the shared state from options. */
export function createWorkspaceSetup(options: WorkspaceOptions = {}): WorkspaceSetup {
  // Before any call: a fresh process must not show one account another's saved state.
  reservePrivateDirectories(options.env);
  const root = options.root ?? defaultWorkspaceRoot(options.env);
  return {
    rootFor: (context) => resolveWorkspaceRoot(root, context),
    readState: createReadStateStore(options.maxReadStateEntries),
    maxWriteBytes: options.maxWriteBytes ?? 10 * 1024 * 1024,
    fileMode: options.fileMode ?? 0o600,
    dirMode: options.dirMode ?? 0o700,
    useRipgrep: options.useRipgrep !== false,
    keyOf: (context) => ({
      account: context.accountId ?? '',
      session: context.sessionId ?? 'default',
    }),
  };
}

/**
 * Records that a session now knows the whole of a file it just wrote, so it can edit it next
 * without reading it again. Returns the file's size in bytes.
 */
export async function recordFullRead(
  setup: WorkspaceSetup,
  context: InvocationContext,
  target: { relative: string; absolute: string },
  text: string,
): Promise<number> {
  const stats = await stat(target.absolute, { bigint: true });
  const total = splitLines(text).length;
  const { account, session } = setup.keyOf(context);
  setup.readState.set(account, session, target.relative, {
    mtimeNs: stats.mtimeNs,
    sizeBytes: Number(stats.size),
    startLine: 1,
    endLine: total,
    totalLines: total,
    partial: false,
  });
  return Number(stats.size);
}
