import { type ResultBudget, resolveResultBudget } from '../budget/result-budget.js';
import { checkOptions, type OptionKeys } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { registerEnvSecrets } from '../util/redact.js';
import { type ApprovalMode, approvalModeFromEnv, parseApprovalMode } from './approval/mode.js';
import type { ToolGatewayHooks, ToolGatewayOptions } from './gateway-types.js';
import { type ArgumentLimits, DEFAULT_ARGUMENT_LIMITS } from './model-arguments.js';

const DEFAULT_TTL_MS = 15 * 60 * 1000;
const DEFAULT_TIMEOUT_MS = 120_000;

const GATEWAY_OPTIONS = {
  approvalMode: true,
  approvalStore: true,
  approvalSecret: true,
  approvalPreviousSecrets: true,
  approvalTtlMs: true,
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
  readonly defaultTimeoutMs: number;
  readonly budget: ResultBudget;
  readonly limits: ArgumentLimits;
  readonly hooks: ToolGatewayHooks;
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
    { onToolStart: true, onToolEnd: true, onApprovalRequested: true, onHookError: true },
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
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(defaultTimeoutMs > 0))
    throw new KsadkError('invalid_config', 'timeoutMs must be a positive number.');
  const budget = resolveResultBudget(options.budget, env);
  const limits = argumentLimitsOf(options.argumentLimits);
  const hooks = options.hooks ?? {};
  registerEnvSecrets(env);
  return { env, defaultMode, ttlMs, defaultTimeoutMs, budget, limits, hooks };
}
