import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  getInvocationContextOrEmpty,
  type InvocationContext,
} from '../../context/invocation-context.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import { defineTool } from '../../tool/define-tool.js';
import type { ToolPolicyInput } from '../../tool/policy.js';
import type { Tool } from '../../tool/tool.js';
import { hostLimitResult } from '../../util/filesystem-errors.js';
import { modelSafeErrorMessage } from '../../util/sanitize-message.js';
import { sandboxFailure } from '../failure.js';
import type { SandboxCommandResult } from '../sandbox-backend.js';
import { filterModelEnv } from './model-env.js';
import { type CallSession, SANDBOX_BOUNDARIES, type SandboxSetup } from './sandbox-setup.js';

const GROUP = 'sandbox';
// Schemas are built when a toolset makes its tools, not when the module loads.
const envInput = () =>
  z
    .record(z.string().max(128), z.string().max(32 * 1024))
    .optional()
    .describe(
      'Extra variables: only KSADK_SAFE_*, PYTHON*, NODE* and UV_* names are kept (never PATH, LD_*, NODE_OPTIONS…).',
    );
const timeoutInput = () =>
  z
    .number()
    .positive()
    .max(86_400)
    .optional()
    .describe('Seconds; capped by the host (KSADK_SANDBOX_MAX_COMMAND_TIMEOUT).');

/** The failure for an error before or around a command. */
function failure(error: unknown, extra: Record<string, unknown>): Record<string, unknown> {
  // A full disk or a permission is no reason to retry: say which it is.
  const limit = hostLimitResult(error, 'the sandbox');
  if (limit) return { ...limit, ...extra };
  const code = error instanceof KsadkError ? error.code : undefined;
  const errorType =
    code === 'setup' ? 'setup' : code === 'sandbox_busy' ? 'sandbox_busy' : 'sandbox_error';
  return sandboxFailure(errorType, modelSafeErrorMessage(error), extra);
}

function disabled(setup: SandboxSetup): Record<string, unknown> | undefined {
  if (setup.resolved.name !== 'disabled') return undefined;
  return sandboxFailure('sandbox_disabled', 'no sandbox backend is configured', {
    hint: 'set KSADK_SANDBOX_BACKEND to bubblewrap, e2b or local_process (not isolated), or KSADK_SANDBOX_TEMPLATE_ID for E2B',
    backend: 'sandbox/disabled',
    boundary: SANDBOX_BOUNDARIES['disabled'],
  });
}

/** What `run_command` and `run_code` share: high risk, code execution, the sandbox boundary. */
function commandToolBase(setup: SandboxSetup) {
  return {
    group: GROUP,
    policy: {
      riskLevel: 'high',
      sideEffects: ['code_execution'],
      approvalScopes: ['sandbox'],
    } satisfies ToolPolicyInput,
    timeoutMs: setup.settings.maxCommandTimeoutMs + 120_000,
    boundary: 'sandbox',
    resultBudget: { fields: ['stdout', 'stderr'] },
  } as const;
}

/** The model's limit in seconds, capped; the default when absent. */
function timeoutMsOf(setup: SandboxSetup, seconds: number | undefined): number {
  const wanted = seconds === undefined ? setup.settings.commandTimeoutMs : seconds * 1000;
  return Math.max(1, Math.min(Math.round(wanted), setup.settings.maxCommandTimeoutMs));
}

/** The fields every command result shares. */
function commandFields(result: SandboxCommandResult): Record<string, unknown> {
  return {
    // `ok` says the command ran to completion (any exit code), as in KsADK; `exit_code` says how.
    ok: result.error_type === null,
    exit_code: result.exit_code,
    stdout: result.stdout,
    stderr: result.stderr,
    timed_out: result.timed_out,
    duration_ms: result.duration_ms,
    output_truncated: result.output_truncated,
    ...(result.error_type
      ? { error_type: result.error_type, error_message: result.error_message }
      : {}),
  };
}

/** Runs `fn` on the call's session, always ending the lease (or killing a per-call sandbox). */
async function onSession(
  setup: SandboxSetup,
  context: InvocationContext,
  fn: (call: CallSession) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const backend = `sandbox/${setup.resolved.name}`;
  let call: CallSession;
  try {
    call = await setup.sessionFor(context);
  } catch (error) {
    return failure(error, { backend });
  }
  try {
    const result = await fn(call);
    return {
      ...result,
      ...(call.synced ? { workspace_synced: call.synced } : {}),
    };
  } catch (error) {
    return failure(error, { backend, sandbox_id: call.session.id });
  } finally {
    await call.done().catch(() => undefined);
  }
}

/** `sandbox_status` (low risk): the backend, its limits and the caller's own session; runs nothing. */
export function sandboxStatusTool(setup: SandboxSetup): Tool {
  return defineTool({
    name: 'sandbox_status',
    description:
      'Report the sandbox backend (and whether it is isolated), its limits and this session’s sandbox, without running anything.',
    input: z.object({}),
    group: GROUP,
    policy: { riskLevel: 'low' },
    execute: async () => {
      const { settings, resolved } = setup;
      const key = setup.keyOf(getInvocationContextOrEmpty());
      const entry = key === undefined ? undefined : setup.sessions.get(key);
      const seconds = (ms: number | undefined) =>
        ms === undefined ? null : new Date(ms).toISOString();
      return {
        ok: true,
        backend: resolved.name,
        backend_source: resolved.source,
        enabled: resolved.name !== 'disabled',
        isolated: setup.isolated,
        template_bound: Boolean(settings.templateId),
        template_id: settings.templateId ?? '',
        timeout_seconds: settings.lifetimeSeconds,
        command_timeout_seconds: settings.commandTimeoutMs / 1000,
        max_command_timeout_seconds: settings.maxCommandTimeoutMs / 1000,
        ttl_seconds: settings.ttlMs / 1000,
        idle_ttl_seconds: settings.idleTtlMs / 1000,
        max_sessions: settings.maxSessions,
        network: resolved.name === 'local_process' ? true : settings.network,
        sandbox_id: entry?.session.id ?? '',
        created_at: seconds(entry?.createdAt),
        last_used_at: seconds(entry?.lastUsedAt),
        expires_at: seconds(entry?.expiresAt),
        idle_seconds: entry ? Math.round((Date.now() - entry.lastUsedAt) / 1000) : null,
        boundary: SANDBOX_BOUNDARIES[resolved.name],
      };
    },
  });
}

/** `run_command` (high risk): a shell command in the caller's sandbox, screened, bounded, budgeted. */
export function runCommandTool(setup: SandboxSetup): Tool {
  return defineTool({
    name: 'run_command',
    description:
      'Run a shell command in the sandbox (sh -c) and return its exit code, stdout and stderr. Files of the workspace are there; the command has a time limit. Needs the user’s approval. `ok` means the command ran; check exit_code.',
    input: z.object({
      command: z.string().max(64 * 1024),
      cwd: z.string().max(1024).optional().describe('Relative to the sandbox root.'),
      timeout: timeoutInput(),
      env: envInput(),
      background: z.boolean().optional(),
    }),
    ...commandToolBase(setup),
    execute: async ({ command, cwd, timeout, env, background }, context) => {
      // The screen (and its shell parser) loads with the first command.
      const { checkCommandPolicy } = await import('../command-policy.js');
      const policy = checkCommandPolicy(command);
      if (!policy.ok) return { ...policy, command: command.slice(0, 200) };
      if (background)
        return sandboxFailure(
          'background_not_supported',
          'background commands are not supported; run it in the foreground',
        );
      const off = disabled(setup);
      if (off) return off;
      const filtered = filterModelEnv(env);
      if (!filtered.ok) return sandboxFailure('invalid_env', filtered.error_message);
      return onSession(setup, getInvocationContextOrEmpty(), async ({ session }) => {
        const result = await session.run({
          argv: ['sh', '-c', command],
          ...(cwd ? { cwd } : {}),
          env: filtered.env,
          timeoutMs: timeoutMsOf(setup, timeout),
          signal: context.signal,
        });
        return {
          ...commandFields(result),
          backend: `sandbox/${setup.resolved.name}`,
          sandbox_id: session.id,
          // The command the model sent, shortened: the model has it, and a long one would crowd
          // out the output in the result budget.
          command: command.length > 1000 ? `${command.slice(0, 1000)}…` : command,
          policy_reason: policy.reason,
          ...(filtered.dropped.length ? { env_dropped: filtered.dropped } : {}),
        };
      });
    },
  });
}

const LANGUAGES: Readonly<Record<string, { language: string; program: string; ext: string }>> = {
  python: { language: 'python', program: 'python3', ext: 'py' },
  py: { language: 'python', program: 'python3', ext: 'py' },
  python3: { language: 'python', program: 'python3', ext: 'py' },
  javascript: { language: 'javascript', program: 'node', ext: 'js' },
  js: { language: 'javascript', program: 'node', ext: 'js' },
  node: { language: 'javascript', program: 'node', ext: 'js' },
  nodejs: { language: 'javascript', program: 'node', ext: 'js' },
  bash: { language: 'bash', program: 'bash', ext: 'sh' },
  sh: { language: 'bash', program: 'bash', ext: 'sh' },
  shell: { language: 'bash', program: 'bash', ext: 'sh' },
};

/** `run_code` (high risk): a snippet in an isolated sandbox only (bubblewrap, e2b). */
export function runCodeTool(setup: SandboxSetup): Tool {
  return defineTool({
    name: 'run_code',
    description:
      'Run a code snippet (python, javascript or bash) in the isolated sandbox and return its exit code, stdout and stderr. Needs the user’s approval.',
    input: z.object({
      code: z.string().max(1024 * 1024),
      language: z.string().max(32).optional().describe('python (default), javascript or bash.'),
      timeout: timeoutInput(),
      env: envInput(),
    }),
    ...commandToolBase(setup),
    execute: async ({ code, language = 'python', timeout, env }, context) => {
      if (!code.trim()) return sandboxFailure('code_required', 'code is required');
      const off = disabled(setup);
      if (off) return off;
      const backend = `sandbox/${setup.resolved.name}`;
      const boundary = SANDBOX_BOUNDARIES[setup.resolved.name];
      if (!setup.isolated)
        return sandboxFailure(
          'isolated_sandbox_required',
          `run_code needs an isolated sandbox (bubblewrap or e2b); ${setup.resolved.name} is not isolated`,
          { backend, boundary },
        );
      const name = language.trim().toLowerCase();
      const spec = Object.hasOwn(LANGUAGES, name) ? LANGUAGES[name] : undefined;
      if (!spec)
        return sandboxFailure(
          'unsupported_language',
          `unsupported language: ${language.slice(0, 32)} (python, javascript or bash)`,
        );
      const filtered = filterModelEnv(env);
      if (!filtered.ok) return sandboxFailure('invalid_env', filtered.error_message);
      return onSession(setup, getInvocationContextOrEmpty(), async ({ session }) => {
        const file = `.ksadk-run-code/${randomBytes(16).toString('hex')}.${spec.ext}`;
        await session.writeFile(file, code);
        const result = await session.run({
          argv: [spec.program, file],
          env: filtered.env,
          timeoutMs: timeoutMsOf(setup, timeout),
          signal: context.signal,
        });
        return {
          ...commandFields(result),
          backend,
          sandbox_id: session.id,
          execution_model: 'snippet_runner',
          boundary,
          language: spec.language,
          path: file,
          command: `${spec.program} ${file}`,
          ...(filtered.dropped.length ? { env_dropped: filtered.dropped } : {}),
        };
      });
    },
  });
}
