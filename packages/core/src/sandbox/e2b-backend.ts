import { KsadkError } from '../errors/ksadk-error.js';
import { registerSecret } from '../util/redact.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import { assertValidEnv } from './child-env.js';
import { clampMaxTimeout } from './command-result.js';
import { createE2BSdkProvider, type E2BProvider, type E2BSandbox } from './e2b-provider.js';
import type { SandboxBackend, SandboxSession, SandboxSessionOptions } from './sandbox-backend.js';
import { type StartupRetry, withStartupRetry } from './startup-retry.js';

/** Options for {@link createE2BBackend}. */
export interface E2BBackendOptions {
  /** Creates the sandboxes. @default the `e2b` SDK (optional peer dependency) */
  provider?: E2BProvider;
  /** The E2B template (`KSADK_SANDBOX_TEMPLATE_ID`). Required. */
  templateId?: string;
  /** Sandbox lifetime, unless a session sets `lifetimeMs`. @default 900_000 (15 minutes) */
  lifetimeMs?: number;
  /**
   * Internet access of the sandboxes, unless a session sets `network`. @default false (Python's
   * default is true; off by default here)
   */
  allowInternetAccess?: boolean;
  /** The E2B API key. @default the SDK reads `E2B_API_KEY` */
  apiKey?: string;
  /** Readiness attempts in all (only not-found errors are retried). @default 6 */
  startupRetryAttempts?: number;
  /** Base delay between readiness attempts (doubled each time, at most 1 s). @default 200 */
  startupRetryDelayMs?: number;
  /**
   * The host environment: its `E2B_API_KEY` is redacted from every result. Commands never get
   * any of it — only the session's and the command's variables. @default process.env
   */
  env?: NodeJS.ProcessEnv;
  /** The longest time limit a command may have. @default 900_000 */
  maxTimeoutMs?: number;
  /** The session root inside the sandbox. @default '/home/user/workspace' */
  root?: string;
  /** Extra sandbox metadata (labels). */
  metadata?: Readonly<Record<string, string>>;
}

const DEFAULT_LIFETIME_MS = 900_000;
const DEFAULT_ROOT = '/home/user/workspace';
const READY_TIMEOUT_MS = 30_000;

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new KsadkError('invalid_config', `${name} must be a positive number`);
  return value;
}

function startupRetry(options: E2BBackendOptions): StartupRetry {
  const attempts = options.startupRetryAttempts ?? 6;
  const delayMs = options.startupRetryDelayMs ?? 200;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new KsadkError('invalid_config', 'startupRetryAttempts must be an integer of at least 1');
  if (!Number.isFinite(delayMs) || delayMs < 0)
    throw new KsadkError('invalid_config', 'startupRetryDelayMs must be a number of at least 0');
  return { attempts, delayMs };
}

/** Waits until the sandbox answers, then creates the root; kills the sandbox when it cannot. */
async function makeReady(sandbox: E2BSandbox, retry: StartupRetry, root: string): Promise<void> {
  try {
    await withStartupRetry(retry, () =>
      sandbox.commands.run('true', { envs: {}, timeoutMs: READY_TIMEOUT_MS }),
    );
    await sandbox.files.makeDir(root);
  } catch (error) {
    // A sandbox that never became ready is still running (and billed): never leak it.
    await sandbox.kill().catch(() => undefined);
    throw new KsadkError(
      'setup',
      `the E2B sandbox did not become ready: ${modelSafeErrorMessage(error)}`,
      { cause: error },
    );
  }
}

/**
 * The `e2b` backend: each session is a fresh E2B cloud sandbox (isolated), created from a
 * template with internet access off unless configured, checked for readiness (retried on
 * not-found errors; killed when it never gets ready) and always killed by `kill()`. Commands are
 * the argv quoted for the shell, with the session's and the command's variables passed
 * natively (never the host's environment); results map a non-zero exit to its exit code, an SDK
 * timeout to `timed_out`; every text field is redacted of registered secrets, the API key and
 * the secret-looking session variables.
 *
 * @throws {KsadkError} `setup` without a template id (`KSADK_SANDBOX_TEMPLATE_ID`); the default
 * provider throws `setup` on first use when the optional `e2b` package is missing.
 *
 * @example
 * ```ts
 * const backend = createE2BBackend({ templateId: 'base', lifetimeMs: 600_000 });
 * const session = await backend.createSession({ sessionId: 'run-1', env: { MODE: 'ci' } });
 * try {
 *   const result = await session.run({ argv: ['python3', '-c', 'print(1 + 1)'], timeoutMs: 30_000 });
 *   console.log(result.stdout); // "2\n"
 * } finally {
 *   await session.kill();
 * }
 * ```
 */
export function createE2BBackend(options: E2BBackendOptions = {}): SandboxBackend {
  const templateId = options.templateId?.trim();
  if (!templateId) {
    throw new KsadkError(
      'setup',
      'the e2b sandbox backend needs a template id: set KSADK_SANDBOX_TEMPLATE_ID (or KSADK_SKILL_RUNTIME_TEMPLATE_ID), or pass templateId',
    );
  }
  const lifetimeMs = positive(options.lifetimeMs, DEFAULT_LIFETIME_MS, 'lifetimeMs');
  const retry = startupRetry(options);
  const maxTimeoutMs = clampMaxTimeout(options.maxTimeoutMs);
  const root = options.root ?? DEFAULT_ROOT;
  if (!root.startsWith('/')) throw new KsadkError('invalid_config', 'root must be absolute');
  const hostEnv = options.env ?? process.env;
  const keys = [options.apiKey, hostEnv['E2B_API_KEY']].filter(
    (key): key is string => typeof key === 'string' && key.length > 0,
  );
  for (const key of keys) registerSecret(key);
  let provider = options.provider;
  return {
    name: 'e2b',
    isolated: true,
    async createSession(sessionOptions: SandboxSessionOptions): Promise<SandboxSession> {
      if (typeof sessionOptions?.sessionId !== 'string' || sessionOptions.sessionId === '') {
        throw new KsadkError('invalid_config', 'createSession needs a sessionId');
      }
      assertValidEnv(sessionOptions.env, 'the session env');
      const sessionEnv = { ...sessionOptions.env };
      // Loaded before a sandbox exists, so a failed load cannot leave one running.
      const { createE2BSession } = await import('./e2b-session.js');
      provider ??= createE2BSdkProvider();
      let sandbox: E2BSandbox;
      try {
        sandbox = await provider.create(templateId, {
          envs: sessionEnv,
          timeoutMs: positive(sessionOptions.lifetimeMs, lifetimeMs, 'lifetimeMs'),
          metadata: {
            ...options.metadata,
            runtime: 'ksadk',
            session_id: sessionOptions.sessionId,
          },
          allowInternetAccess: sessionOptions.network ?? options.allowInternetAccess ?? false,
          ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        });
      } catch (error) {
        if (KsadkError.isInstance(error)) throw error;
        throw new KsadkError(
          'setup',
          `could not create the E2B sandbox: ${modelSafeErrorMessage(error)}`,
          { cause: error },
        );
      }
      await makeReady(sandbox, retry, root);
      return createE2BSession({
        sandbox,
        sessionId: sessionOptions.sessionId,
        root,
        sessionEnv,
        secrets: keys,
        maxTimeoutMs,
      });
    },
  };
}
