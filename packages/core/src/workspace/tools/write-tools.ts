import { link, mkdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../tool/define-tool.js';
import type { Tool } from '../../tool/tool.js';
import { echoValue } from '../../util/sanitize-message.js';
import { tempName, writeNewFile } from '../atomic-file.js';
import { workspaceFailure } from '../failure.js';
import {
  DirectoryEscapeError,
  escapedResult,
  type PinnedDir,
  pinDirectory,
} from '../pinned-dir.js';
import {
  isPathError,
  type ResolvedWorkspacePath,
  resolveWorkspacePath,
} from '../workspace-paths.js';
import {
  recordFullRead,
  WORKSPACE_BOUNDARY,
  WORKSPACE_GROUP,
  type WorkspaceSetup,
} from '../workspace-setup.js';

/** What the write tools share: medium risk, a workspace write, the workspace boundary. */
const WRITE_TOOL = {
  policy: { riskLevel: 'medium', sideEffects: ['workspace_write'] },
  group: WORKSPACE_GROUP,
  boundary: WORKSPACE_BOUNDARY,
} as const;

const MAX_BATCH = 100;

/**
 * Creates missing parent directories of `target` (inside the root) and returns the ones it made,
 * deepest last. Each is made inside its pinned parent, so a parent swapped for a symlink cannot
 * send a new directory outside the root.
 */
async function ensureParents(root: string, target: string, mode: number): Promise<string[]> {
  const created: string[] = [];
  let dir = path.dirname(target);
  const missing: string[] = [];
  while (dir !== root && dir.startsWith(root + path.sep)) {
    try {
      const stats = await stat(dir);
      if (!stats.isDirectory())
        throw Object.assign(new Error(`${path.relative(root, dir)} is not a directory`), {
          code: 'ENOTDIR',
        });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      missing.unshift(dir);
      dir = path.dirname(dir);
    }
  }
  for (const directory of missing) {
    const parent = await pinDirectory(root, path.dirname(directory));
    try {
      await mkdir(parent.entry(path.basename(directory)), { mode });
    } finally {
      await parent.close();
    }
    created.push(directory);
  }
  return created;
}

/** An existing file keeps its permissions; a new one gets the toolset's file mode. */
async function modeFor(
  target: { exists: boolean; absolute: string },
  setup: WorkspaceSetup,
): Promise<number> {
  if (!target.exists) return setup.fileMode;
  return (await stat(target.absolute)).mode & 0o777;
}

async function removeQuietly(files: string[], dirs: string[]): Promise<void> {
  for (const file of files) await rm(file, { force: true });
  for (const dir of [...dirs].reverse()) await rmdir(dir).catch(() => undefined);
}

function tooLarge(shown: string, bytes: number, max: number) {
  return workspaceFailure(
    'too_large',
    `content is ${bytes} bytes; the workspace write limit is ${max} bytes`,
    { path: shown },
  );
}

/** `write_workspace_file`. */
export function writeWorkspaceFileTool(setup: WorkspaceSetup): Tool {
  return defineTool({
    name: 'write_workspace_file',
    description:
      "Create or replace a UTF-8 text file in the workspace (parent directories are created). Prefer edit_workspace_file to change part of an existing file. With overwrite=false an existing file is left alone and the call fails. Needs the user's approval. Files up to the workspace write limit (10 MB by default).",
    input: z.object({
      path: z.string().describe('File path relative to the workspace root'),
      content: z.string(),
      overwrite: z.boolean().default(true),
    }),
    ...WRITE_TOOL,
    execute: async (input, context) => {
      const root = await setup.rootFor(context.invocation);
      const target = await resolveWorkspacePath(root, input.path);
      if (isPathError(target)) return target;
      if (target.relative === '.' || target.kind === 'directory') {
        return workspaceFailure('is_a_directory', `${echoValue(input.path)} is a directory`, {
          path: echoValue(input.path),
        });
      }
      const bytes = Buffer.byteLength(input.content, 'utf8');
      if (bytes > setup.maxWriteBytes) return tooLarge(input.path, bytes, setup.maxWriteBytes);
      if (target.exists && !input.overwrite) {
        return workspaceFailure(
          'already_exists',
          `workspace file already exists: ${echoValue(input.path)}`,
          { path: target.relative },
        );
      }
      let created: string[] = [];
      let dir: PinnedDir;
      try {
        created = await ensureParents(root, target.absolute, setup.dirMode);
        dir = await pinDirectory(root, path.dirname(target.absolute));
      } catch (error) {
        await removeQuietly([], created);
        if (error instanceof DirectoryEscapeError) return escapedResult(target.relative);
        throw error;
      }
      const name = path.basename(target.absolute);
      const temp = dir.entry(tempName());
      try {
        await writeNewFile(temp, input.content, await modeFor(target, setup));
        if (!(await dir.stillInside())) throw new DirectoryEscapeError();
        if (input.overwrite) await rename(temp, dir.entry(name));
        else {
          await link(temp, dir.entry(name));
          await unlink(temp);
        }
      } catch (error) {
        await removeQuietly([temp], created);
        if (error instanceof DirectoryEscapeError) return escapedResult(target.relative);
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          return workspaceFailure(
            'already_exists',
            `workspace file already exists: ${echoValue(input.path)}`,
            { path: target.relative },
          );
        }
        throw error;
      } finally {
        await dir.close();
      }
      const size = await recordFullRead(setup, context.invocation, target, input.content);
      return { ok: true, path: target.relative, size };
    },
  });
}

/** `write_workspace_files`: up to 100 files, all or nothing. */
export function writeWorkspaceFilesTool(setup: WorkspaceSetup): Tool {
  return defineTool({
    name: 'write_workspace_files',
    description:
      "Create or replace several text files at once (up to 100; more are ignored and truncated is set). All or nothing: if any file cannot be written, none is. Needs the user's approval.",
    input: z.object({
      files: z.array(z.object({ path: z.string(), content: z.string() })).min(1),
      overwrite: z.boolean().default(true),
    }),
    ...WRITE_TOOL,
    execute: async (input, context) => {
      const root = await setup.rootFor(context.invocation);
      const batch = input.files.slice(0, MAX_BATCH);
      const targets: ResolvedWorkspacePath[] = [];
      const seen = new Set<string>();
      for (const [index, file] of batch.entries()) {
        const target = await resolveWorkspacePath(root, file.path);
        if (isPathError(target)) return { ...target, failed_index: index, written: [] };
        if (target.relative === '.' || target.kind === 'directory') {
          return workspaceFailure('is_a_directory', `${echoValue(file.path)} is a directory`, {
            path: echoValue(file.path),
            failed_index: index,
            written: [],
          });
        }
        if (seen.has(target.relative)) {
          return workspaceFailure('duplicate_path', `${echoValue(file.path)} appears twice`, {
            path: echoValue(file.path),
            failed_index: index,
            written: [],
          });
        }
        seen.add(target.relative);
        const bytes = Buffer.byteLength(file.content, 'utf8');
        if (bytes > setup.maxWriteBytes)
          return {
            ...tooLarge(file.path, bytes, setup.maxWriteBytes),
            failed_index: index,
            written: [],
          };
        if (target.exists && !input.overwrite) {
          return workspaceFailure(
            'already_exists',
            `workspace file already exists: ${echoValue(file.path)}`,
            { path: target.relative, failed_index: index, written: [] },
          );
        }
        targets.push(target);
      }
      // Stage every file next to its target (in its pinned directory), then move them all into
      // place; undo on any failure.
      const createdDirs: string[] = [];
      const temps: string[] = [];
      const backups: { target: string; backup: string }[] = [];
      const placed: string[] = [];
      const pins = new Map<string, PinnedDir>();
      const entryOf = (absolute: string): string =>
        pins.get(path.dirname(absolute))!.entry(path.basename(absolute));
      try {
        for (const [index, target] of targets.entries()) {
          createdDirs.push(...(await ensureParents(root, target.absolute, setup.dirMode)));
          const parent = path.dirname(target.absolute);
          if (!pins.has(parent)) pins.set(parent, await pinDirectory(root, parent));
          const temp = pins.get(parent)!.entry(tempName());
          temps.push(temp);
          await writeNewFile(temp, batch[index]!.content, await modeFor(target, setup));
        }
        for (const pin of pins.values()) {
          if (!(await pin.stillInside())) throw new DirectoryEscapeError();
        }
        for (const [index, target] of targets.entries()) {
          const destination = entryOf(target.absolute);
          if (target.exists) {
            const backup = pins.get(path.dirname(target.absolute))!.entry(tempName());
            await link(destination, backup);
            backups.push({ target: destination, backup });
            await rename(temps[index]!, destination);
          } else {
            await link(temps[index]!, destination);
            await unlink(temps[index]!);
          }
          placed.push(destination);
        }
      } catch (error) {
        for (const { target, backup } of backups)
          await rename(backup, target).catch(() => undefined);
        const restored = new Set(backups.map((entry) => entry.target));
        await removeQuietly(
          [...temps, ...placed.filter((file) => !restored.has(file))],
          createdDirs,
        );
        for (const pin of pins.values()) await pin.close();
        if (error instanceof DirectoryEscapeError) {
          return { ...escapedResult('(batch)'), written: [] };
        }
        const code = (error as NodeJS.ErrnoException).code;
        return workspaceFailure(
          code === 'EEXIST' ? 'already_exists' : 'write_failed',
          `no file was written: ${code === 'EEXIST' ? 'a file appeared while writing' : 'a write failed'}`,
          { written: [] },
        );
      }
      for (const { backup } of backups) await rm(backup, { force: true });
      for (const pin of pins.values()) await pin.close();
      const written = [];
      for (const [index, target] of targets.entries()) {
        written.push({
          path: target.relative,
          size: await recordFullRead(setup, context.invocation, target, batch[index]!.content),
        });
      }
      return { ok: true, written, truncated: input.files.length > MAX_BATCH };
    },
  });
}

/** `delete_workspace_file`. */
export function deleteWorkspaceFileTool(setup: WorkspaceSetup): Tool {
  return defineTool({
    name: 'delete_workspace_file',
    description:
      "Delete one file, or one empty directory, in the workspace. A symlink is removed itself, never what it points to. The workspace root cannot be deleted. Needs the user's approval.",
    input: z.object({ path: z.string().describe('Path relative to the workspace root') }),
    policy: { riskLevel: 'high', sideEffects: ['workspace_delete'] },
    group: WORKSPACE_GROUP,
    boundary: WORKSPACE_BOUNDARY,
    execute: async (input, context) => {
      const root = await setup.rootFor(context.invocation);
      const target = await resolveWorkspacePath(root, input.path, {
        mustExist: true,
        keepFinalSymlink: true,
      });
      if (isPathError(target)) return target;
      if (target.relative === '.') {
        return workspaceFailure('refuse_root', 'refuse to delete workspace root', {
          path: echoValue(input.path),
        });
      }
      if (target.kind === 'directory') {
        try {
          await rmdir(target.absolute);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOTEMPTY') {
            return workspaceFailure(
              'directory_not_empty',
              `${echoValue(input.path)} is a directory that is not empty`,
              { path: target.relative },
            );
          }
          throw error;
        }
      } else {
        await unlink(target.absolute);
      }
      const { account, session } = setup.keyOf(context.invocation);
      setup.readState.delete(account, session, target.relative);
      return { ok: true, deleted: target.relative, type: target.kind };
    },
  });
}
