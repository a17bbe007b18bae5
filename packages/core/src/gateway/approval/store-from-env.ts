import { KsadkError } from '../../errors/ksadk-error.js';
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
}
interface PostgresModule {
  createPostgresApprovalStore(options: { connectionString: string }): ApprovalStore;
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
