import type { ApprovalStore } from '@ksadk/core';

/** The shared approval stores the stories run on. */
export type StoreKind = 'redis' | 'postgres';

/** Where the shared services are. */
export interface ServiceUrls {
  redisUrl: string;
  postgresUrl: string;
}

/**
 * A shared approval store of the given kind (every instance creates its own client to it). Only
 * the package of the store in use is loaded.
 */
export async function approvalStoreFor(
  kind: StoreKind,
  urls: ServiceUrls,
  namespace: string,
): Promise<ApprovalStore> {
  if (kind === 'redis') {
    const { createRedisApprovalStore } = await import('@ksadk/redis');
    return createRedisApprovalStore({ url: urls.redisUrl, keyPrefix: `${namespace}:` });
  }
  const { createPostgresApprovalStore } = await import('@ksadk/postgres');
  return createPostgresApprovalStore({ connectionString: urls.postgresUrl, schema: namespace });
}
