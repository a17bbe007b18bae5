/** Prefixes of variables a model may set for a command. */
import type { ToolErrorResult } from '../../gateway/results.js';
import { sandboxFailure } from '../failure.js';
export const MODEL_ENV_PREFIXES = ['KSADK_SAFE_', 'PYTHON', 'NODE', 'UV_'] as const;

/**
 * Never settable by a model, even under an allowed prefix: what changes which program runs, what
 * a shell or interpreter executes at start-up, or what the loader injects.
 */
const DENIED =
  /^(PATH|HOME|SHELL|IFS|ENV|BASH_ENV|BASHOPTS|SHELLOPTS|PS4|PROMPT_COMMAND|NODE_OPTIONS|NODE_PATH|NODE_EXTRA_CA_CERTS|NODE_TLS_REJECT_UNAUTHORIZED|NODE_REPL_EXTERNAL_MODULE|PYTHONSTARTUP|PYTHONHOME|PYTHONINSPECT|PYTHONEXECUTABLE|PYTHONUSERBASE|PYTHONWARNINGS|PYTHONBREAKPOINT|PYTHONPYCACHEPREFIX|NODE_V8_COVERAGE|NODE_REDIRECT_WARNINGS|NODE_COMPILE_CACHE|NODE_DEBUG_NATIVE|LD_[A-Z_]*|DYLD_[A-Z_]*|KSADK_COMMAND_[A-Z0-9_]*)$/i;

/** Entries a model may pass at most. */
export const MAX_MODEL_ENV_ENTRIES = 64;
/** Total bytes of names and values a model may pass. */
export const MAX_MODEL_ENV_BYTES = 64 * 1024;

/** The variables kept, the names dropped, or why the whole set was refused (`invalid_env`). */
export type ModelEnvResult =
  | { ok: true; env: Record<string, string>; dropped: string[] }
  | (ToolErrorResult & { error_type: 'invalid_env' });

/**
 * Filters a model-supplied environment: only names under {@link MODEL_ENV_PREFIXES} are kept,
 * never `PATH`, `LD_*`, `NODE_OPTIONS`, `BASH_ENV` and the other start-up hooks; names must be
 * shell identifiers, values free of NUL; at most {@link MAX_MODEL_ENV_ENTRIES} entries and
 * {@link MAX_MODEL_ENV_BYTES} bytes. Dropped names are reported, so the model knows.
 */
export function filterModelEnv(env: Readonly<Record<string, unknown>> | undefined): ModelEnvResult {
  const kept: Record<string, string> = Object.create(null);
  const dropped: string[] = [];
  const entries = Object.entries(env ?? {});
  if (entries.length > MAX_MODEL_ENV_ENTRIES)
    return sandboxFailure('invalid_env', `env has more than ${MAX_MODEL_ENV_ENTRIES} entries`);
  let bytes = 0;
  for (const [name, value] of entries) {
    if (typeof value !== 'string' || value.includes('\0'))
      return sandboxFailure(
        'invalid_env',
        `env value of ${name.slice(0, 64)} must be a string without NUL`,
      );
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
    if (bytes > MAX_MODEL_ENV_BYTES)
      return sandboxFailure('invalid_env', `env is larger than ${MAX_MODEL_ENV_BYTES} bytes`);
    const allowed =
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) &&
      !DENIED.test(name) &&
      MODEL_ENV_PREFIXES.some((prefix) => name.toUpperCase().startsWith(prefix));
    if (allowed) kept[name] = value;
    else dropped.push(name.slice(0, 64));
  }
  return { ok: true, env: { ...kept }, dropped };
}
