import { checkOptions } from '../../errors/check-options.js';
import type { Tool } from '../../tool/tool.js';
import { reservePrivateDirectories } from '../../util/private-dirs.js';
import {
  defaultWorkspaceRoot,
  resolveWorkspaceRoot,
  type WorkspaceRootOption,
} from '../../workspace/workspace-root.js';
import type { CreateSandboxBackendOptions } from '../create-sandbox-backend.js';
import { resolveSandboxBackend } from '../resolve-backend.js';
import type { SandboxBackend } from '../sandbox-backend.js';
import { createSandboxSessionPool, type SandboxSessionPool } from '../session-pool.js';
import { createSandboxSetup, type SandboxWorkspace } from './sandbox-setup.js';
import { type SandboxToolSettings, sandboxToolSettingsFromEnv } from './sandbox-tool-settings.js';
import { runCodeTool, runCommandTool, sandboxStatusTool } from './sandbox-tools.js';

/** Options for {@link createSandboxToolset}. */
export interface SandboxToolsetOptions {
  /**
   * The backend: a name or alias, or a backend you built. @default the one
   * `resolveSandboxBackend({ purpose: 'sandbox' })` picks from the environment (disabled when
   * nothing is configured)
   */
  backend?: string | SandboxBackend;
  /**
   * The workspace commands see: its root (or a function of the call's ids), the workspace
   * toolset's setup, or `false` for none. `local_process` runs in it; isolated backends get a
   * copy when their session starts. @default `<session dir>/workspace`
   */
  workspace?: WorkspaceRootOption | SandboxWorkspace | false;
  /** Overrides of the settings read from the environment. */
  settings?: Partial<SandboxToolSettings>;
  /** A sessions to share (e.g. with another toolset). @default a new one, closed by `close()` */
  sessions?: SandboxSessionPool;
  /** Options for building the backend (`passEnv`, `bwrapPath`, `e2bProvider`…). */
  backendOptions?: Omit<CreateSandboxBackendOptions, 'env'>;
  /** Where `KSADK_*` variables are read. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** The sandbox toolset: its tools, the session pool, and `close`. */
export interface SandboxToolset {
  /** `sandbox_status`, `run_command`, `run_code` (group `sandbox`). */
  readonly tools: readonly Tool[];
  readonly sessions: SandboxSessionPool;
  /** The backend chosen and what chose it. */
  readonly backend: { name: string; source: string; isolated: boolean };
  /**
   * Kills the per-call sandboxes and refuses new calls; kills every sessions session too when the
   * sessions is the toolset's own. Idempotent.
   */
  close(): Promise<void>;
}

const isWorkspace = (value: unknown): value is SandboxWorkspace =>
  typeof (value as SandboxWorkspace | undefined)?.rootFor === 'function';

/**
 * Creates the sandbox tools (on the execution layer): `sandbox_status` (low),
 * `run_command` (high; screened by `checkCommandPolicy`, which is not the boundary — the backend
 * is) and `run_code` (high; isolated backends only). Sessions are reused per account, user and
 * session, with a hard TTL, an idle TTL and a maximum count; a call with no session gets its own
 * sandbox, killed when the call ends. Every command has a bounded time limit, capped output and a
 * minimal environment.
 *
 * @throws {KsadkError} `invalid_config` for an unknown backend name or a bad `KSADK_SANDBOX_*`
 * value.
 *
 * @example
 * ```ts
 * const sandbox = createSandboxToolset({ backend: 'bubblewrap', workspace: '/srv/ws' });
 * console.log(sandbox.tools.map((tool) => tool.name)); // ["sandbox_status", "run_command", "run_code"]
 * await sandbox.close();
 * ```
 */
export function createSandboxToolset(options: SandboxToolsetOptions = {}): SandboxToolset {
  checkOptions(
    options,
    {
      backend: true,
      workspace: true,
      settings: true,
      sessions: true,
      backendOptions: true,
      env: true,
    },
    'createSandboxToolset()',
  );
  const env = options.env ?? process.env;
  // Before any copy of the workspace: other accounts' results, memories and runs stay out of it.
  reservePrivateDirectories(env);
  const given = typeof options.backend === 'object' ? options.backend : undefined;
  const resolved = given
    ? { name: given.name, source: 'explicit' }
    : resolveSandboxBackend({
        purpose: 'sandbox',
        env,
        ...(typeof options.backend === 'string' ? { explicit: options.backend } : {}),
      });
  const settings = { ...sandboxToolSettingsFromEnv(env), ...options.settings };
  const sessions =
    options.sessions ??
    createSandboxSessionPool({
      ttlMs: settings.ttlMs,
      idleTtlMs: settings.idleTtlMs,
      maxSessions: settings.maxSessions,
      sweepIntervalMs: settings.sweepIntervalMs,
    });
  const root = options.workspace ?? defaultWorkspaceRoot(env);
  const workspace: SandboxWorkspace | undefined =
    root === false
      ? undefined
      : isWorkspace(root)
        ? root
        : { rootFor: (context) => resolveWorkspaceRoot(root, context) };
  const setup = createSandboxSetup({
    resolved,
    settings,
    sessions,
    workspace,
    ...(given ? { backend: given } : {}),
    backendOptions: {
      ...options.backendOptions,
      env,
      maxTimeoutMs: Math.max(
        settings.maxCommandTimeoutMs,
        options.backendOptions?.maxTimeoutMs ?? 0,
      ),
    },
  });
  return {
    tools: [sandboxStatusTool(setup), runCommandTool(setup), runCodeTool(setup)],
    sessions,
    backend: { name: resolved.name, source: resolved.source, isolated: setup.isolated },
    close: async () => {
      await setup.close();
      if (!options.sessions) await sessions.close();
    },
  };
}

export type { SandboxWorkspace } from './sandbox-setup.js';
export type { SandboxToolSettings } from './sandbox-tool-settings.js';
export type { WorkspaceSyncLimits, WorkspaceSyncReport } from './workspace-sync.js';
