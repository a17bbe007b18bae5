import type { InvocationContext } from '../context/invocation-context.js';
import { type CredentialBroker, createCredentialBroker } from '../credentials/credential-broker.js';
import { resolveCredentialKeys } from '../credentials/credential-crypto.js';
import type { CredentialSpec } from '../credentials/credential-spec.js';
import { createInMemoryCredentialStore } from '../credentials/credential-store.js';
import { KsadkError } from '../errors/ksadk-error.js';
import type { ApprovalGate } from './approval/gate.js';
import type { ToolGatewayOptions } from './gateway-types.js';

const DEFAULT_REQUEST_TTL_MS = 10 * 60 * 1000;

/**
 * The gateway's credential broker, made on first use — a gateway whose tools declare no
 * credentials never needs a key. Its audit records go to the approval store's log.
 *
 * @throws {KsadkError} `invalid_config` (on first use) without a credential key, or for a bad TTL.
 */
export function lazyCredentialBroker(
  options: ToolGatewayOptions,
  env: NodeJS.ProcessEnv,
  gate: ApprovalGate,
): () => CredentialBroker {
  const given = options.credentials ?? {};
  const ttl = given.requestTtlMs ?? DEFAULT_REQUEST_TTL_MS;
  if (!(ttl > 0))
    throw new KsadkError('invalid_config', 'credentials.requestTtlMs must be a positive number.');
  let broker: CredentialBroker | undefined;
  return () => {
    if (broker) return broker;
    const keys = resolveCredentialKeys({ key: given.key, previous: given.previousKeys }, env);
    broker = createCredentialBroker({
      store: given.store ?? createInMemoryCredentialStore(),
      keys: () => keys,
      requestTtlMs: ttl,
      providers: given.providers ?? {},
      audit: (event, facts) =>
        gate.kit.audit(event, { call: facts }, { credentialId: facts.credentialId }),
    });
    return broker;
  };
}

/** The stored token of the current account and user for a credential, or none (never a request). */
export type StoredTokenLookup = (
  invocation: InvocationContext,
  spec: CredentialSpec,
) => Promise<string | undefined>;

const lookups = new WeakMap<object, StoredTokenLookup>();

/** Lets code given the gateway (an MCP toolset listing as the user) read its users' stored tokens. */
export function registerStoredTokenLookup(gateway: object, broker: () => CredentialBroker): void {
  lookups.set(gateway, (invocation, spec) => broker().storedToken(invocation, spec));
}

/** The gateway's {@link StoredTokenLookup}, when it is a gateway this package made. */
export function storedTokenLookupOf(gateway: object | undefined): StoredTokenLookup | undefined {
  return gateway ? lookups.get(gateway) : undefined;
}
