import { KsadkError } from '../errors/ksadk-error.js';
import { createBubblewrapBackend } from './bubblewrap-backend.js';
import { createE2BBackend } from './e2b-backend.js';
import type { E2BProvider } from './e2b-provider.js';
import { createLocalProcessBackend, type LocalBackendOptions } from './local-process-backend.js';
import { parseSandboxBackendName } from './resolve-backend.js';
import type { SandboxBackend, SandboxBackendName } from './sandbox-backend.js';
import { sandboxSettingsFromEnv } from './sandbox-settings.js';

/** Options for {@link createSandboxBackend}. */
export interface CreateSandboxBackendOptions extends LocalBackendOptions {
  /** Where `KSADK_*` settings, `PATH` and `passEnv` are read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** `bubblewrap`: the `bwrap` program. @default 'bwrap' on `PATH` */
  bwrapPath?: string;
  /** `e2b`: the sandbox provider. @default the `e2b` SDK */
  e2bProvider?: E2BProvider;
  /** `e2b`: the API key. @default the SDK reads `E2B_API_KEY` */
  e2bApiKey?: string;
}

const ENABLE_HINT =
  'set KSADK_SANDBOX_BACKEND (or KSADK_SKILL_RUNTIME_BACKEND) to local_process, bubblewrap or e2b, or set KSADK_SANDBOX_TEMPLATE_ID to use E2B';

/**
 * The `disabled` backend: `createSession` always throws `KsadkError('setup')` saying which
 * variable to set. `isolated` is false (nothing can run).
 */
export function createDisabledBackend(): SandboxBackend {
  return {
    name: 'disabled',
    isolated: false,
    createSession: () =>
      Promise.reject(
        new KsadkError('setup', `Skill Runtime / sandbox is disabled: ${ENABLE_HINT}`),
      ),
  };
}

/**
 * Builds the backend `name` (a name or alias, usually from {@link resolveSandboxBackend}),
 * configured from `env`: `e2b` reads {@link sandboxSettingsFromEnv}.
 *
 * @throws {KsadkError} `invalid_config` for an unknown name or setting; `setup` when the backend
 * cannot work here (`bwrap` missing, no E2B template).
 *
 * @example
 * ```ts
 * const resolved = resolveSandboxBackend({ purpose: 'sandbox' });
 * const backend = createSandboxBackend(resolved.name);
 * console.log(backend.name === resolved.name, backend.isolated);
 * ```
 */
export function createSandboxBackend(
  name: SandboxBackendName | string,
  options: CreateSandboxBackendOptions = {},
): SandboxBackend {
  const env = options.env ?? process.env;
  const local = {
    env,
    ...(options.passEnv ? { passEnv: options.passEnv } : {}),
    ...(options.maxTimeoutMs === undefined ? {} : { maxTimeoutMs: options.maxTimeoutMs }),
  };
  switch (parseSandboxBackendName(name, 'backend name')) {
    case 'disabled':
      return createDisabledBackend();
    case 'local_process':
      return createLocalProcessBackend(local);
    case 'bubblewrap':
      return createBubblewrapBackend({
        ...local,
        ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
      });
    case 'e2b': {
      const settings = sandboxSettingsFromEnv(env);
      return createE2BBackend({
        ...settings,
        env,
        ...(options.maxTimeoutMs === undefined ? {} : { maxTimeoutMs: options.maxTimeoutMs }),
        ...(options.e2bProvider ? { provider: options.e2bProvider } : {}),
        ...(options.e2bApiKey ? { apiKey: options.e2bApiKey } : {}),
      });
    }
  }
}
