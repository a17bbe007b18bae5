import { type ResultBudget, resolveResultBudget } from '../budget/result-budget.js';
import { checkOptions, type OptionKeys } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { createInMemoryExecutionStore } from '../executions/memory-execution-store.js';
import { registerEnvSecrets } from '../util/redact.js';
import { type ApprovalMode, approvalModeFromEnv, parseApprovalMode } from './approval/mode.js';
import type { ExecutionSettings } from './execution-recorder.js';
import type { ToolGatewayHooks, ToolGatewayOptions } from './gateway-types.js';
import { type ArgumentLimits, DEFAULT_ARGUMENT_LIMITS } from './model-arguments.js';

const DEFAULT_TTL_MS = 15 * 60 * 1000;
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_EXECUTION_RETENTION_MS = 24 * 60 * 60 * 1000;

function executionSettingsOf(options: ToolGatewayOptions): ExecutionSettings {
  const given = options.executions ?? {};
  checkOptions(
    given,
    { store: true, results: true, retentionMs: true, recordArguments: true },
    'createToolGateway({ executions })',
  );
  const store = given.store ?? createInMemoryExecutionStore();
  const results = given.results ?? (store.inMemory === true ? 'inline' : 'files');
  if (results !== 'inline' && results !== 'files')
    throw new KsadkError('invalid_config', "executions.results must be 'inline' or 'files'.");
  const retentionMs = given.retentionMs ?? DEFAULT_EXECUTION_RETENTION_MS;
  if (!(retentionMs >= 1000))
    throw new KsadkError('invalid_config', 'executions.retentionMs must be at least 1000.');
  if (given.recordArguments !== undefined && typeof given.recordArguments !== 'boolean')
    throw new KsadkError('invalid_config', 'executions.recordArguments must be true or false.');
  return {
    store,
    results,
    retentionMs,
    recordArguments: given.recordArguments === true,
    onExecution: options.hooks?.onExecution,
  };
}

const GATEWAY_OPTIONS = {
  approvalMode: true,
  approvalStore: true,
  approvalSecret: true,
  approvalPreviousSecrets: true,
  approvalTtlMs: true,
  approvalRetentionMs: true,
  onExpiry: true,
  policyTimeoutMs: true,
  auditArguments: true,
  credentials: true,
  executions: true,
  timeoutMs: true,
  budget: true,
  argumentLimits: true,
  hooks: true,
  tracing: true,
  env: true,
} as const satisfies OptionKeys<ToolGatewayOptions>;

/** A gateway's options, checked and with their defaults. */
export interface GatewaySettings {
  readonly env: NodeJS.ProcessEnv;
  readonly defaultMode: ApprovalMode;
  readonly ttlMs: number;
  readonly retentionMs: number;
  readonly onExpiry: 'reject' | 'approve';
  readonly policyTimeoutMs: number;
  readonly defaultTimeoutMs: number;
  readonly budget: ResultBudget;
  readonly limits: ArgumentLimits;
  readonly hooks: ToolGatewayHooks;
  readonly executions: ExecutionSettings;
}

function argumentLimitsOf(given: Partial<ArgumentLimits> | undefined): ArgumentLimits {
  const limits = { ...DEFAULT_ARGUMENT_LIMITS, ...given };
  if (!(limits.maxChars > 0) || !(limits.maxDepth > 0)) {
    throw new KsadkError('invalid_config', 'argumentLimits must be positive numbers.');
  }
  return limits;
}

/**
 * Checks a gateway's options (unknown keys, the approval mode, positive limits, the budget) and
 * registers the environment's secrets for redaction.
 *
 * @throws {KsadkError} `invalid_config` for an unknown option or approval mode, a bad budget or bad limits.
 */
export function resolveGatewaySettings(options: ToolGatewayOptions): GatewaySettings {
  checkOptions(options, GATEWAY_OPTIONS, 'createToolGateway()');
  checkOptions(
    options.hooks,
    {
      onToolStart: true,
      onToolEnd: true,
      onApprovalRequested: true,
      onApprovalDecided: true,
      onExecution: true,
      onHookError: true,
    },
    'createToolGateway({ hooks })',
  );
  checkOptions(
    options.argumentLimits,
    { maxChars: true, maxDepth: true },
    'createToolGateway({ argumentLimits })',
  );
  const env = options.env ?? process.env;
  const defaultMode =
    options.approvalMode !== undefined
      ? parseApprovalMode(options.approvalMode, 'createToolGateway({ approvalMode })')
      : approvalModeFromEnv(env);
  const ttlMs = options.approvalTtlMs ?? DEFAULT_TTL_MS;
  if (!(ttlMs > 0))
    throw new KsadkError('invalid_config', 'approvalTtlMs must be a positive number.');
  const retentionMs = options.approvalRetentionMs ?? Math.max(ttlMs, 1000);
  if (!(retentionMs >= 1000))
    throw new KsadkError(
      'invalid_config',
      'approvalRetentionMs must be at least 1000: a request must outlive its deadline for a late call to learn it expired.',
    );
  const onExpiry = options.onExpiry ?? 'reject';
  if (onExpiry !== 'reject' && onExpiry !== 'approve')
    throw new KsadkError('invalid_config', "onExpiry must be 'reject' or 'approve'.");
  const policyTimeoutMs = options.policyTimeoutMs ?? 2000;
  if (!(policyTimeoutMs > 0))
    throw new KsadkError('invalid_config', 'policyTimeoutMs must be a positive number.');
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(defaultTimeoutMs > 0))
    throw new KsadkError('invalid_config', 'timeoutMs must be a positive number.');
  const budget = resolveResultBudget(options.budget, env);
  const limits = argumentLimitsOf(options.argumentLimits);
  const hooks = options.hooks ?? {};
  registerEnvSecrets(env);
  return {
    env,
    defaultMode,
    ttlMs,
    retentionMs,
    onExpiry,
    policyTimeoutMs,
    defaultTimeoutMs,
    budget,
    limits,
    hooks,
    executions: executionSettingsOf(options),
  };
}
