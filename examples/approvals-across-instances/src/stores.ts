import type { ApprovalStore } from '@ksadk/core';

/** The shared approval stores the stories run on. */
export type StoreKind = 'redis' | 'postgres';

/** Where the shared services are. */
export interface ServiceUrls {
  redisUrl: string;
  postgresUrl: string;
  /** Where ADK keeps its sessions (`DATABASE_URL`'s database unless another is given). */
  adkSessionsUrl?: string;
}

/**
 * A shared approval store of the given kind (every instance creates its own client to it). Only
 * the package of the store in use is loaded.
 */
export async function approvalStoreFor(
  kind: StoreKind,
  urls: ServiceUrls,
  namespace: string,
  /** Time limit of one store operation, waiting for a connection included. */
  timeoutMs?: number,
): Promise<ApprovalStore> {
  const limit = timeoutMs === undefined ? {} : { timeoutMs };
  if (kind === 'redis') {
    const { createRedisApprovalStore } = await import('@ksadk/redis');
    return createRedisApprovalStore({ url: urls.redisUrl, keyPrefix: `${namespace}:`, ...limit });
  }
  const { createPostgresApprovalStore } = await import('@ksadk/postgres');
  return createPostgresApprovalStore({
    connectionString: urls.postgresUrl,
    schema: namespace,
    ...limit,
  });
}
