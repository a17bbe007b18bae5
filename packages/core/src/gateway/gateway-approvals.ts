import { KsadkError } from '../errors/ksadk-error.js';
import { type ApprovalGate, createApprovalGate } from './approval/gate.js';
import { resolveApprovalKeys } from './approval/grant.js';
import { createInMemoryApprovalStore } from './approval/store.js';
import { APPROVAL_STORE_ENV, approvalStoreChoice } from './approval/store-from-env.js';
import type { HookCalls } from './gateway-hooks.js';
import type { GatewaySettings } from './gateway-settings.js';
import type { ToolGatewayOptions } from './gateway-types.js';

/**
 * The gateway's approval gate: over the given store (in memory by default), with keys from the
 * options or the environment, and `onApprovalRequested` called for each new request.
 *
 * @throws {KsadkError} `invalid_config` when the environment names a shared store but none is
 * given, or for a short secret.
 */
export function createGatewayApprovals(
  options: ToolGatewayOptions,
  settings: GatewaySettings,
  { reportHookError }: HookCalls,
): ApprovalGate {
  const { env, hooks } = settings;
  if (!options.approvalStore && approvalStoreChoice(env).kind !== 'memory') {
    throw new KsadkError(
      'invalid_config',
      `${APPROVAL_STORE_ENV} names a shared approval store, which createToolGateway cannot open by itself: pass approvalStore: await approvalStoreFromEnv() (the adapters' loaders do this for you).`,
    );
  }
  const store = options.approvalStore ?? createInMemoryApprovalStore();
  return createApprovalGate({
    store,
    keys: resolveApprovalKeys(
      {
        secret: options.approvalSecret,
        previous: options.approvalPreviousSecrets,
        shared: store.shared === true,
      },
      env,
    ),
    ttlMs: settings.ttlMs,
    budget: settings.budget,
    ...(hooks.onApprovalRequested
      ? {
          onRequested: (request, context) => {
            try {
              hooks.onApprovalRequested?.(request, context);
            } catch (error) {
              reportHookError(error, 'onApprovalRequested');
            }
          },
        }
      : {}),
  });
}
