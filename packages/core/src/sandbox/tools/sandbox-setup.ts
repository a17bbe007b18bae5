import { createHash, randomBytes } from 'node:crypto';
import type { InvocationContext } from '../../context/invocation-context.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import { modelSafeErrorMessage } from '../../util/sanitize-message.js';
import {
  type CreateSandboxBackendOptions,
  createSandboxBackend,
} from '../create-sandbox-backend.js';
import type { ResolvedSandboxBackend } from '../resolve-backend.js';
import type { SandboxBackend, SandboxSession } from '../sandbox-backend.js';
import type { SandboxSessionPool } from '../session-pool.js';
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
export interface SandboxSetup {
  readonly resolved: ResolvedSandboxBackend;
  readonly settings: SandboxToolSettings;
  readonly sessions: SandboxSessionPool;
  /** Whether the backend isolates commands (false for `local_process` and `disabled`). */
  readonly isolated: boolean;
  /** The sessions key of a call, or `undefined` when the call has no session (a per-call sandbox). */
  keyOf(context: InvocationContext): string | undefined;
  /** A session for the call: the caller's reused one, or a per-call one killed at `done`. */
  sessionFor(context: InvocationContext): Promise<CallSession>;
  /** Kills the per-call sandboxes still running and refuses new calls (the sessions closes apart). */
  close(): Promise<void>;
}

/** Options the setup is built from. */
export interface SandboxSetupOptions {
  resolved: ResolvedSandboxBackend;
  settings: SandboxToolSettings;
  sessions: SandboxSessionPool;
  workspace: SandboxWorkspace | undefined;
  backend?: SandboxBackend;
  backendOptions: CreateSandboxBackendOptions;
  /** The longest a sandbox may take to start (and get its workspace copy). @default 180_000 */
  createTimeoutMs?: number;
}

/**
 * `work()` within `ms`: past it, a `setup` error — and whatever `work()` returns later is killed,
 * so a start-up that hangs holds neither the caller nor a sandbox.
 */
async function withinDeadline(
  work: () => Promise<{ session: SandboxSession; synced?: WorkspaceSyncReport }>,
  ms: number,
): Promise<{ session: SandboxSession; synced?: WorkspaceSyncReport }> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const started = work();
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      reject(
        new KsadkError('setup', `the sandbox did not start within ${Math.round(ms / 1000)} s`),
      );
    }, ms);
    timer.unref();
  });
  void started.then(
    (made) => {
      if (late) void made.session.kill().catch(() => undefined);
    },
    () => undefined,
  );
  try {
    return await Promise.race([started, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A session label that names no account and no host path. */
const label = (key: string): string =>
  `ksadk-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;

/** Builds the setup; the backend itself is created on first use (a `setup` error is a result). */
export function createSandboxSetup(options: SandboxSetupOptions): SandboxSetup {
  const { resolved, settings, sessions, workspace } = options;
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

  const createTimeoutMs = options.createTimeoutMs ?? settings.startTimeoutMs;
  const perCall = new Set<SandboxSession>();
  let closed = false;
  const refuseClosed = (): void => {
    if (closed) throw new KsadkError('unsupported', 'the sandbox toolset is closed');
  };

  const keyOf = (context: InvocationContext): string | undefined => {
    const session = settings.pinnedSessionId ?? context.sessionId;
    if (!session) return undefined;
    return JSON.stringify([context.accountId ?? '', context.userId ?? '', session]);
  };

  return {
    resolved,
    settings,
    sessions,
    isolated,
    keyOf,
    sessionFor: async (context) => {
      refuseClosed();
      const key = keyOf(context);
      if (key === undefined) {
        const made = await withinDeadline(
          () => create(context, `ksadk-call-${randomBytes(6).toString('hex')}`),
          createTimeoutMs,
        );
        if (closed) {
          await made.session.kill().catch(() => undefined);
          refuseClosed();
        }
        perCall.add(made.session);
        return {
          session: made.session,
          created: true,
          ...(made.synced ? { synced: made.synced } : {}),
          done: async () => {
            perCall.delete(made.session);
            await made.session.kill();
          },
        };
      }
      let synced: WorkspaceSyncReport | undefined;
      const lease = await sessions.acquire(key, async () => {
        const made = await withinDeadline(() => create(context, label(key)), createTimeoutMs);
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
    close: async () => {
      closed = true;
      const running = [...perCall];
      perCall.clear();
      await Promise.all(running.map((session) => session.kill().catch(() => undefined)));
    },
  };
}
