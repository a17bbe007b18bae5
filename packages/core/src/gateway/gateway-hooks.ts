import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import { isThenable } from '../util/thenable.js';
import type { ToolGatewayHooks } from './gateway-types.js';

/** The gateway's calls of its hooks: a hook that throws is reported, never passed on. */
export interface HookCalls {
  /** Reports an error a hook (or the tracer) threw: to `onHookError`, or as a process warning. */
  reportHookError(error: unknown, hook: string): void;
  /** Calls `onToolStart` or `onToolEnd`, when given. */
  callHook<E>(name: 'onToolStart' | 'onToolEnd', event: E): void;
}

/** The hook calls of a gateway's hooks. */
export function createHookCalls(hooks: ToolGatewayHooks): HookCalls {
  const reportHookError = (error: unknown, hook: string): void => {
    try {
      if (hooks.onHookError) {
        const returned: unknown = hooks.onHookError(error, hook);
        // An async reporter that rejects has nowhere left to report to either.
        if (isThenable(returned))
          (returned as PromiseLike<unknown>).then(undefined, () => undefined);
      } else
        process.emitWarning(`KsADK gateway hook ${hook} threw: ${modelSafeErrorMessage(error)}`);
    } catch {
      // An error reporter that throws has nowhere left to report to.
    }
  };
  return {
    reportHookError,
    callHook<E>(name: 'onToolStart' | 'onToolEnd', event: E): void {
      const hook = hooks[name] as ((event: E) => void) | undefined;
      if (!hook) return;
      try {
        hook(event);
      } catch (error) {
        reportHookError(error, name);
      }
    },
  };
}
