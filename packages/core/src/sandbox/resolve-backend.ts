import { KsadkError } from '../errors/ksadk-error.js';
import { SANDBOX_BACKEND_NAMES, type SandboxBackendName } from './sandbox-backend.js';

/** Who asks: the Skill Runtime (`skills`) or the sandbox tools (`sandbox`). */
export type SandboxPurpose = 'skills' | 'sandbox';

/** Options for {@link resolveSandboxBackend}. */
export interface ResolveSandboxBackendOptions {
  purpose: SandboxPurpose;
  /** A backend chosen in code; wins over every variable. */
  explicit?: string;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** The backend chosen, and what chose it. */
export interface ResolvedSandboxBackend {
  name: SandboxBackendName;
  /** `explicit`, the variable that decided (`KSADK_SANDBOX_BACKEND`…), or `default`. */
  source: string;
}

const ALIASES: Readonly<Record<string, SandboxBackendName>> = {
  '': 'disabled',
  disabled: 'disabled',
  none: 'disabled',
  off: 'disabled',
  local: 'local_process',
  local_process: 'local_process',
  bubblewrap: 'bubblewrap',
  bwrap: 'bubblewrap',
  e2b: 'e2b',
};

/**
 * A backend name or alias (any case, trimmed): `''`/`disabled`/`none`/`off` → `disabled`;
 * `local`/`local_process`; `bubblewrap`/`bwrap`; `e2b`.
 *
 * @throws {KsadkError} `invalid_config` naming `source` and listing the valid names.
 */
export function parseSandboxBackendName(value: string, source: string): SandboxBackendName {
  const key = String(value).trim().toLowerCase();
  const name = Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined;
  if (name) return name;
  throw new KsadkError(
    'invalid_config',
    `${source}: unsupported sandbox backend ${JSON.stringify(String(value).slice(0, 40))}; valid: ${SANDBOX_BACKEND_NAMES.join(', ')} (aliases: none, off, local, bwrap)`,
    { details: { source } },
  );
}

/** `e2b` when a template id is set, with the variable that set it. */
function templateChoice(env: NodeJS.ProcessEnv): ResolvedSandboxBackend | undefined {
  for (const name of ['KSADK_SANDBOX_TEMPLATE_ID', 'KSADK_SKILL_RUNTIME_TEMPLATE_ID']) {
    if (env[name]?.trim()) return { name: 'e2b', source: name };
  }
  return undefined;
}

/**
 * The one resolver of the execution backend: tool descriptors, `component_status` and execution
 * all call it, so what is reported is what runs.
 *
 * - `skills`: `explicit`; else `KSADK_SKILL_RUNTIME_BACKEND` when **present**
 *   (even empty — empty means disabled); else `KSADK_SANDBOX_BACKEND` when non-empty and not a
 *   disabled alias; else `e2b` when a template id (`KSADK_SANDBOX_TEMPLATE_ID`,
 *   `KSADK_SKILL_RUNTIME_TEMPLATE_ID`) is set; else `disabled`.
 * - `sandbox`: `explicit`; else `KSADK_SANDBOX_BACKEND` when non-empty; else `e2b` when a
 *   template id is set; else `disabled`. Deviation: Python executes `e2b` when nothing is
 *   configured (and fails without a template); here nothing configured means disabled.
 *
 * @throws {KsadkError} `invalid_config` for an unknown name, naming the variable.
 *
 * @example
 * ```ts
 * const { name, source } = resolveSandboxBackend({
 *   purpose: 'skills',
 *   env: { KSADK_SANDBOX_BACKEND: 'bwrap' },
 * });
 * console.log(name, source); // "bubblewrap" "KSADK_SANDBOX_BACKEND"
 * ```
 */
export function resolveSandboxBackend(
  options: ResolveSandboxBackendOptions,
): ResolvedSandboxBackend {
  const env = options.env ?? process.env;
  if (options.explicit !== undefined) {
    return { name: parseSandboxBackendName(options.explicit, 'explicit'), source: 'explicit' };
  }
  if (options.purpose === 'skills') {
    const runtime = env['KSADK_SKILL_RUNTIME_BACKEND'];
    if (runtime !== undefined) {
      return {
        name: parseSandboxBackendName(runtime, 'KSADK_SKILL_RUNTIME_BACKEND'),
        source: 'KSADK_SKILL_RUNTIME_BACKEND',
      };
    }
  }
  const sandbox = env['KSADK_SANDBOX_BACKEND'];
  if (sandbox?.trim()) {
    const name = parseSandboxBackendName(sandbox, 'KSADK_SANDBOX_BACKEND');
    if (options.purpose === 'sandbox' || name !== 'disabled') {
      return { name, source: 'KSADK_SANDBOX_BACKEND' };
    }
  }
  return templateChoice(env) ?? { name: 'disabled', source: 'default' };
}
