/**
 * The execution layer's contract, shared by the Skill Runtime and the sandbox tools: a backend
 * creates sessions; a session holds files under its root and runs commands there. Backends:
 * `local_process` (not isolated; trusted local development), `bubblewrap` (Linux namespaces),
 * `e2b` (a cloud sandbox), `disabled`.
 */

/** The execution backends. */
export type SandboxBackendName = 'disabled' | 'local_process' | 'bubblewrap' | 'e2b';

/** Every valid backend name, for configuration errors. */
export const SANDBOX_BACKEND_NAMES: readonly SandboxBackendName[] = [
  'disabled',
  'local_process',
  'bubblewrap',
  'e2b',
];

/** One command: an argv (never a shell string) run in the session. */
export interface SandboxCommand {
  /** Program and arguments. No shell is involved unless the program is one. */
  argv: readonly string[];
  /** Working directory relative to the session root. @default the root */
  cwd?: string;
  /** Variables for this command, on top of the session's. Chosen by the host, never by a model. */
  env?: Readonly<Record<string, string>>;
  /** Wall-clock limit; the whole process tree is killed when it passes. Capped by the backend. */
  timeoutMs: number;
  /** Bytes kept per stream (the tail); the result says when output was cut. @default 1 MiB */
  maxOutputBytes?: number;
  /** Aborts the command (the whole process tree is killed). */
  signal?: AbortSignal;
}

/** What a command did. Text fields are redacted of registered secrets. */
export interface SandboxCommandResult {
  /** `exit_code === 0`, not timed out, no error. */
  ok: boolean;
  /** `null` when the command did not exit on its own (timeout, abort, failure to start). */
  exit_code: number | null;
  stdout: string;
  stderr: string;
  duration_ms: number;
  timed_out: boolean;
  /** Set when the command could not run or was stopped (`tool_timeout`, `tool_aborted`, `spawn_failed`…). */
  error_type: string | null;
  error_message: string | null;
  /** True when a stream was longer than `maxOutputBytes` and only its tail is kept. */
  output_truncated: boolean;
}

/** Options for {@link SandboxBackend.createSession}. */
export interface SandboxSessionOptions {
  /** The caller's session id (labels the sandbox; never a path by itself). */
  sessionId: string;
  /**
   * Local backends: the host directory to use as the session root (created if missing, kept on
   * `kill`). @default a new private temporary directory, removed on `kill`
   */
  hostRoot?: string;
  /** Local backends: host paths commands may read (bound read-only under bubblewrap). */
  readOnlyPaths?: readonly string[];
  /** Variables every command of the session gets. */
  env?: Readonly<Record<string, string>>;
  /** Network access for the session's commands. @default false (bubblewrap, e2b) */
  network?: boolean;
  /** Sandbox lifetime for cloud backends. @default the backend's */
  lifetimeMs?: number;
}

/** A place to run commands: files under `root`, commands with cwd inside it. */
export interface SandboxSession {
  /** `<backend>:<id>`; no host path. */
  readonly id: string;
  readonly backend: SandboxBackendName;
  /** The root as commands see it (a host path for local backends, a sandbox path for e2b). */
  readonly root: string;
  /** Writes a file under the root (parents created); paths that leave the root are refused. */
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /** Reads a file under the root, refusing files over `maxBytes` (default 16 MiB). */
  readFile(path: string, options?: { maxBytes?: number }): Promise<Uint8Array>;
  /** Regular files under a directory of the root, recursively, as root-relative paths, sorted. */
  listFiles(dir: string, options?: { maxEntries?: number }): Promise<string[]>;
  /** Runs one command; never throws for a command that fails — the result says so. */
  run(command: SandboxCommand): Promise<SandboxCommandResult>;
  /** Stops everything the session started and releases it. Idempotent. */
  kill(): Promise<void>;
}

/** Creates sessions of one kind. */
export interface SandboxBackend {
  readonly name: SandboxBackendName;
  /** Whether commands are isolated from the host (false for `local_process`). */
  readonly isolated: boolean;
  createSession(options: SandboxSessionOptions): Promise<SandboxSession>;
}
