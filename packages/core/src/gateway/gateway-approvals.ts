import { KsadkError } from '../errors/ksadk-error.js';
import { isThenable } from '../util/thenable.js';
import { type ApprovalGate, createApprovalGate } from './approval/gate.js';
import { resolveApprovalKeys } from './approval/grant.js';
import { createHostDecisions, type HostDecisions } from './approval/host-decisions.js';
import { createInMemoryApprovalStore } from './approval/store.js';
import { APPROVAL_STORE_ENV, approvalStoreChoice } from './approval/store-from-env.js';
import type { HookCalls } from './gateway-hooks.js';
import type { GatewaySettings } from './gateway-settings.js';
import type { ToolGatewayOptions } from './gateway-types.js';

/** Calls an observer: what it throws, or a promise it returns that rejects, is reported, never passed on. */
function observer<A extends unknown[]>(
  hook: ((...args: A) => unknown) | undefined,
  name: string,
  reportHookError: HookCalls['reportHookError'],
): ((...args: A) => void) | undefined {
  if (!hook) return undefined;
  return (...args) => {
    try {
      const returned = hook(...args);
      if (isThenable(returned))
        (returned as PromiseLike<unknown>).then(undefined, (error: unknown) =>
          reportHookError(error, name),
        );
    } catch (error) {
      reportHookError(error, name);
    }
  };
}

/**
 * The gateway's approval gate and host decisions: over the given store (in memory by default),
 * with keys from the options or the environment, and the approval hooks.
 *
 * @throws {KsadkError} `invalid_config` when the environment names a shared store but none is
 * given, or for a short secret.
 */
export function createGatewayApprovals(
  options: ToolGatewayOptions,
  settings: GatewaySettings,
  { reportHookError }: HookCalls,
): { gate: ApprovalGate; host: HostDecisions } {
  const { env, hooks } = settings;
  if (!options.approvalStore && approvalStoreChoice(env).kind !== 'memory') {
    throw new KsadkError(
      'invalid_config',
      `${APPROVAL_STORE_ENV} names a shared approval store, which createToolGateway cannot open by itself: pass approvalStore: await approvalStoreFromEnv() (the adapters' loaders do this for you).`,
    );
  }
  const store = options.approvalStore ?? createInMemoryApprovalStore();
  const keys = resolveApprovalKeys(
    {
      secret: options.approvalSecret,
      previous: options.approvalPreviousSecrets,
      shared: store.shared === true,
    },
    env,
  );
  const onRequested = observer(hooks.onApprovalRequested, 'onApprovalRequested', reportHookError);
  const onDecided = observer(hooks.onApprovalDecided, 'onApprovalDecided', reportHookError);
  const gate = createApprovalGate({
    store,
    keys,
    ttlMs: settings.ttlMs,
    retentionMs: settings.retentionMs,
    budget: settings.budget,
    onExpiry: settings.onExpiry,
    auditArguments: options.auditArguments === true,
    ...(onRequested ? { onRequested } : {}),
    ...(onDecided ? { onDecided } : {}),
  });
  return { gate, host: createHostDecisions(gate.kit, keys, settings.limits) };
}
