import { createHash, randomBytes } from 'node:crypto';
import type { InvocationContext } from '../../context/invocation-context.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import {
  type CreateSandboxBackendOptions,
  createSandboxBackend,
} from '../../sandbox/create-sandbox-backend.js';
import type { ResolvedSandboxBackend } from '../../sandbox/resolve-backend.js';
import type { SandboxBackend, SandboxSession } from '../../sandbox/sandbox-backend.js';
import type { SandboxRegistry } from '../../sandbox/sandbox-registry.js';
import { modelSafeErrorMessage } from '../../util/sanitize-message.js';
import type { SandboxToolSettings } from './sandbox-tool-settings.js';
import { syncWorkspaceToSandbox, type WorkspaceSyncReport } from './workspace-sync.js';

/** What each backend isolates, in one line for the model (`boundary`). */
export const SANDBOX_BOUNDARIES: Readonly<Record<string, string>> = {
  disabled: 'disabled: no command runs until a sandbox backend is configured',
  local_process:
    'executes as a local child process: shares the host filesystem (cwd confined to the workspace), the host network and an allowlisted environment; not isolated',
  bubblewrap:
    'Linux namespaces (bubblewrap): only the sandbox directory is writable, system directories read-only, no network unless configured; never exposes the host shell',
  e2b: 'only through the configured isolated sandbox backend (E2B); never exposes the host shell',
};

/** How the tools reach the workspace: the workspace toolset's root for a call. */
export interface SandboxWorkspace {
  rootFor(context: InvocationContext): Promise<string>;
}

/** A session for one call, and what to do when the call ends. */
export interface CallSession {
  session: SandboxSession;
  created: boolean;
  synced?: WorkspaceSyncReport;
  done(): Promise<void>;
}

/** The shared state of one sandbox toolset. */
export interface SandboxRuntime {
  readonly resolved: ResolvedSandboxBackend;
  readonly settings: SandboxToolSettings;
  readonly registry: SandboxRegistry;
  /** Whether the backend isolates commands (false for `local_process` and `disabled`). */
  readonly isolated: boolean;
  /** The registry key of a call, or `undefined` when the call has no session (a per-call sandbox). */
  keyOf(context: InvocationContext): string | undefined;
  /** A session for the call: the caller's reused one, or a per-call one killed at `done`. */
  sessionFor(context: InvocationContext): Promise<CallSession>;
}

/** Options the runtime is built from. */
export interface SandboxRuntimeOptions {
  resolved: ResolvedSandboxBackend;
  settings: SandboxToolSettings;
  registry: SandboxRegistry;
  workspace: SandboxWorkspace | undefined;
  backend?: SandboxBackend;
  backendOptions: CreateSandboxBackendOptions;
}

/** A session label that names no account and no host path. */
const label = (key: string): string =>
  `ksadk-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;

/** Builds the runtime; the backend itself is created on first use (a `setup` error is a result). */
export function createSandboxRuntime(options: SandboxRuntimeOptions): SandboxRuntime {
  const { resolved, settings, registry, workspace } = options;
  let backend: SandboxBackend | undefined = options.backend;
  const backendFor = (): SandboxBackend => {
    backend ??= createSandboxBackend(resolved.name, options.backendOptions);
    return backend;
  };
  const isolated = options.backend
    ? options.backend.isolated
    : resolved.name === 'bubblewrap' || resolved.name === 'e2b';

  const create = async (
    context: InvocationContext,
    sessionId: string,
  ): Promise<{ session: SandboxSession; synced?: WorkspaceSyncReport }> => {
    const chosen = backendFor();
    const root = workspace ? await workspace.rootFor(context) : undefined;
    if (!chosen.isolated) {
      // Not isolated: commands run in the caller's workspace itself (nothing to copy).
      const session = await chosen.createSession({
        sessionId,
        network: true,
        ...(root ? { hostRoot: root } : {}),
      });
      return { session };
    }
    const session = await chosen.createSession({ sessionId, network: settings.network });
    if (!root) return { session };
    try {
      return { session, synced: await syncWorkspaceToSandbox(root, session, settings.sync) };
    } catch (error) {
      await session.kill().catch(() => undefined);
      throw new KsadkError(
        'setup',
        `could not copy the workspace into the sandbox: ${modelSafeErrorMessage(error)}`,
        { cause: error },
      );
    }
  };

  const keyOf = (context: InvocationContext): string | undefined => {
    const session = settings.pinnedSessionId ?? context.sessionId;
    if (!session) return undefined;
    return JSON.stringify([context.accountId ?? '', context.userId ?? '', session]);
  };

  return {
    resolved,
    settings,
    registry,
    isolated,
    keyOf,
    sessionFor: async (context) => {
      const key = keyOf(context);
      if (key === undefined) {
        const made = await create(context, `ksadk-call-${randomBytes(6).toString('hex')}`);
        return {
          session: made.session,
          created: true,
          ...(made.synced ? { synced: made.synced } : {}),
          done: () => made.session.kill(),
        };
      }
      let synced: WorkspaceSyncReport | undefined;
      const lease = await registry.acquire(key, async () => {
        const made = await create(context, label(key));
        synced = made.synced;
        return made.session;
      });
      return {
        session: lease.entry.session,
        created: lease.created,
        ...(lease.created && synced ? { synced } : {}),
        done: async () => lease.release(),
      };
    },
  };
}
