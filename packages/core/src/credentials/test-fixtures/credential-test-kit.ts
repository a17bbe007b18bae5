// What the credential tests share: an empty environment, a key, Alice, and the pause's request.
import {
  type InvocationContext,
  runWithInvocationContext,
} from '../../context/invocation-context.js';
import type { ToolResult } from '../../gateway/results.js';
import { isCredentialRequired } from '../credential-required.js';

export const env = {} as NodeJS.ProcessEnv;
export const KEY = 'a-credential-key-of-at-least-32-bytes!!';

/** Someone the tests act as: an account, its user, a session. */
export interface Person {
  readonly accountId: string;
  readonly userId: string;
  readonly sessionId: string;
}
export const alice: Person = { accountId: 'acct-a', userId: 'alice', sessionId: 's1' };

/** Runs `fn` as `context`. */
export const as = <T>(context: InvocationContext, fn: () => Promise<T>): Promise<T> =>
  runWithInvocationContext(context, fn);

/** The credential request of a `credential_required` result (any other result fails the test). */
export const requestOf = (result: ToolResult) => {
  if (!isCredentialRequired(result))
    throw new Error(`expected credential_required, got ${JSON.stringify(result)}`);
  return result.credential_request;
};
