import { realpathSync } from 'node:fs';
import path from 'node:path';
import { KsadkError } from '../errors/ksadk-error.js';
import { bubblewrapArgs, systemMountArgs } from '../sandbox/bubblewrap-args.js';
import { findExecutable } from '../sandbox/find-executable.js';
import type { McpStdioSandboxConfig } from './stdio-sandbox-config.js';

/** The real paths of existing entries (a path that does not exist cannot be bound). */
function realPaths(paths: readonly string[], field: string): string[] {
  return paths.map((entry) => {
    try {
      return realpathSync(entry);
    } catch (error) {
      throw new KsadkError('invalid_config', `${field}: ${entry} does not exist`, {
        cause: error,
      });
    }
  });
}

const inside = (root: string, candidate: string): boolean =>
  candidate === root || candidate.startsWith(root.endsWith('/') ? root : `${root}/`);

/**
 * The program and arguments that run `command` inside bubblewrap: new namespaces for everything
 * (the network too unless allowed), a new session, no capabilities, killed with its parent; the
 * system directories, the server's working directory and its read-only paths read-only, its
 * writable paths writable, a private `/proc`, `/dev`, `/tmp` and home folder.
 *
 * @throws {KsadkError} `setup` when `bwrap` is not on `PATH`; `invalid_config` for a listed path
 * that does not exist.
 */
export function bubblewrapCommand(
  sandbox: McpStdioSandboxConfig,
  launch: {
    command: string;
    args: readonly string[];
    cwd: string | undefined;
    env: Readonly<Record<string, string>>;
  },
): { command: string; args: string[] } {
  const bwrap = findExecutable('bwrap', launch.env['PATH'] ?? process.env['PATH']);
  if (!bwrap)
    throw new KsadkError(
      'setup',
      'the bubblewrap sandbox for this MCP server needs the bwrap program, which was not found on PATH (Debian/Ubuntu: apt-get install bubblewrap)',
    );
  const writable = realPaths(sandbox.writablePaths, 'writable_paths');
  const readOnly = realPaths(sandbox.readOnlyPaths, 'read_only_paths');
  const cwd = launch.cwd ? realPaths([launch.cwd], 'cwd')[0]! : '/';
  const bound = [...writable, ...readOnly];
  const listed = (entry: string): boolean => bound.some((root) => inside(root, entry));
  const home = launch.env['HOME'] ? path.resolve(launch.env['HOME']) : undefined;
  // The program file itself (not its folder), when it is named by path.
  const program = path.isAbsolute(launch.command) ? realPaths([launch.command], 'command') : [];
  // The working directory, read-only — unless it holds the home folder (or is `/`): that much
  // of the host is exposed only when listed.
  if (cwd !== '/' && !listed(cwd) && home && inside(cwd, home))
    throw new KsadkError(
      'invalid_config',
      'the working directory of this MCP server holds the home folder: list the paths it needs in read_only_paths or writable_paths (they are exposed as listed)',
    );
  const extraReadOnly = [...program, ...(cwd === '/' ? [] : [cwd])].filter(
    (entry) => !listed(entry),
  );
  const args = bubblewrapArgs(
    systemMountArgs(),
    {
      root: undefined,
      readOnlyPaths: [...readOnly, ...extraReadOnly],
      writablePaths: writable,
      network: sandbox.network,
      hostname: 'ksadk-mcp',
      // A home of its own, unless a listed path holds it.
      privateDirs: home && !listed(home) ? [home] : [],
    },
    cwd,
  );
  return { command: bwrap, args: [...args, launch.command, ...launch.args] };
}
