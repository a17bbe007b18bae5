import type { CredentialStore } from '../../credentials/credential-store.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import type { ExecutionStore } from '../../executions/execution-store.js';
import { importOptional } from '../../util/deferred-modules.js';
import { registerSecret } from '../../util/redact.js';
import type { ApprovalStore } from './store.js';

/** The environment variable that names a shared approval store. */
export const APPROVAL_STORE_ENV = 'KSADK_APPROVAL_STORE';

/** What `KSADK_APPROVAL_STORE` asks for. */
export type ApprovalStoreChoice =
  | { readonly kind: 'memory' }
  | { readonly kind: 'redis' | 'postgres'; readonly url: string };

const SCHEMES: Record<string, 'redis' | 'postgres'> = {
  'redis:': 'redis',
  'rediss:': 'redis',
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
};

/**
 * Reads `KSADK_APPROVAL_STORE`: unset, `memory` or `in_memory` → this process's store; a
 * `redis://`, `rediss://`, `postgres://` or `postgresql://` URL → that shared store. The URL's
 * password is registered with the redactor at once.
 *
 * @throws {KsadkError} `invalid_config` for anything else (the message never repeats the URL).
 */
export function approvalStoreChoice(env: NodeJS.ProcessEnv = process.env): ApprovalStoreChoice {
  const value = env[APPROVAL_STORE_ENV]?.trim() ?? '';
  if (value === '' || value === 'memory' || value === 'in_memory') return { kind: 'memory' };
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const kind = url ? SCHEMES[url.protocol] : undefined;
  if (!url || !kind) {
    throw new KsadkError(
      'invalid_config',
      `${APPROVAL_STORE_ENV} must be memory, a redis:// or rediss:// URL, or a postgres:// or postgresql:// URL.`,
    );
  }
  if (url.password) registerSecret(decodeURIComponent(url.password));
  return { kind, url: value };
}

interface RedisModule {
  createRedisApprovalStore(options: { url: string }): ApprovalStore;
  createRedisExecutionStore(options: { url: string }): ExecutionStore & Closable;
  createRedisCredentialStore(options: { url: string }): CredentialStore & Closable;
}
interface PostgresModule {
  createPostgresApprovalStore(options: { connectionString: string }): ApprovalStore;
  createPostgresExecutionStore(options: { connectionString: string }): ExecutionStore & Closable;
  createPostgresCredentialStore(options: { connectionString: string }): CredentialStore & Closable;
}
interface Closable {
  close?(): Promise<void>;
}

/**
 * The approval store `KSADK_APPROVAL_STORE` names, created with the store package (`@ksadk/redis`
 * or `@ksadk/postgres`, loaded only then), or `undefined` for the in-memory default. The caller
 * owns it: `close()` it when done.
 *
 * @throws {KsadkError} `invalid_config` for a bad value; `setup` when the store package is missing.
 *
 * @example
 * ```ts
 * // KSADK_APPROVAL_STORE=redis://cache:6379  KSADK_APPROVAL_SECRET=…
 * const approvalStore = await approvalStoreFromEnv();
 * const gateway = createToolGateway(approvalStore ? { approvalStore } : {});
 * ```
 */
export async function approvalStoreFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Promise<ApprovalStore | undefined> {
  const choice = approvalStoreChoice(env);
  if (choice.kind === 'memory') return undefined;
  const why = `${APPROVAL_STORE_ENV} names a ${choice.kind === 'redis' ? 'Redis' : 'PostgreSQL'} store`;
  if (choice.kind === 'redis') {
    const module = await importOptional<RedisModule>('@ksadk/redis', why, '@ksadk/redis ioredis');
    return module.createRedisApprovalStore({ url: choice.url });
  }
  const module = await importOptional<PostgresModule>('@ksadk/postgres', why, '@ksadk/postgres pg');
  return module.createPostgresApprovalStore({ connectionString: choice.url });
}

/** The stores several processes share: approvals (with the audit log), execution records, credentials. */
export interface SharedStores {
  readonly kind: 'redis' | 'postgres';
  readonly approvalStore: ApprovalStore;
  readonly executionStore: ExecutionStore;
  readonly credentialStore: CredentialStore;
  /** Closes the three stores' connections. */
  close(): Promise<void>;
}

/**
 * The approval, execution and credential stores of the Redis or PostgreSQL database
 * `KSADK_APPROVAL_STORE` names — what a console or an operator's tool reads to see every instance's
 * approvals, calls and connected accounts — or `undefined` when it names none (the in-memory
 * default, which another process cannot see).
 *
 * @throws {KsadkError} `invalid_config` for a bad value; `setup` when the store package is missing.
 *
 * @example
 * ```ts
 * const stores = await sharedStoresFromEnv();
 * const gateway = createToolGateway(
 *   stores
 *     ? { approvalStore: stores.approvalStore, executions: { store: stores.executionStore } }
 *     : {},
 * );
 * ```
 */
export async function sharedStoresFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Promise<SharedStores | undefined> {
  const choice = approvalStoreChoice(env);
  if (choice.kind === 'memory') return undefined;
  const why = `${APPROVAL_STORE_ENV} names a ${choice.kind === 'redis' ? 'Redis' : 'PostgreSQL'} store`;
  const stores =
    choice.kind === 'redis'
      ? await importOptional<RedisModule>('@ksadk/redis', why, '@ksadk/redis ioredis').then(
          (module) => ({
            approvalStore: module.createRedisApprovalStore({ url: choice.url }),
            executionStore: module.createRedisExecutionStore({ url: choice.url }),
            credentialStore: module.createRedisCredentialStore({ url: choice.url }),
          }),
        )
      : await importOptional<PostgresModule>('@ksadk/postgres', why, '@ksadk/postgres pg').then(
          (module) => ({
            approvalStore: module.createPostgresApprovalStore({ connectionString: choice.url }),
            executionStore: module.createPostgresExecutionStore({ connectionString: choice.url }),
            credentialStore: module.createPostgresCredentialStore({
              connectionString: choice.url,
            }),
          }),
        );
  return {
    kind: choice.kind,
    ...stores,
    close: async () => {
      await Promise.all([
        stores.approvalStore.close?.(),
        (stores.executionStore as Closable).close?.(),
        (stores.credentialStore as Closable).close?.(),
      ]);
    },
  };
}
