import { describe, expect, it } from 'vitest';
import {
  type CredentialStore,
  createInMemoryCredentialStore,
} from '../../credentials/credential-store.js';
import { checkCredentialStore } from './index.js';

describe('credential store conformance suite', () => {
  it('the in-memory credential store conforms', { timeout: 60_000 }, async () => {
    expect(
      await checkCredentialStore((quotas) => createInMemoryCredentialStore({ quotas })),
    ).toEqual([]);
  });

  it('fails a store whose useRequest is not a compare-and-set', async () => {
    const failures = await checkCredentialStore((quotas) => {
      const inner = createInMemoryCredentialStore({ quotas });
      const racy: CredentialStore = {
        ...inner,
        // Reads, waits, then writes: concurrent uses all see `pending`.
        async useRequest(id, now) {
          const request = await inner.getRequest(id);
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (request?.status !== 'pending' || request.expiresAt <= now) return undefined;
          await inner.useRequest(id, now);
          return request;
        },
      };
      return racy;
    });
    expect(failures.some((failure) => failure.includes('compare-and-set'))).toBe(true);
  });

  it('fails a store that lists another account’s credentials or ignores the quota', async () => {
    const failures = await checkCredentialStore((quotas) => {
      const inner = createInMemoryCredentialStore({ quotas: { ...quotas, credentials: 1_000 } });
      const leaky: CredentialStore = {
        ...inner,
        listCredentials: async (query) => [
          ...(await inner.listCredentials(query)),
          ...(await inner.listCredentials({ accountId: 'acct_other' })),
        ],
      };
      return leaky;
    });
    expect(failures.some((failure) => failure.includes('another account'))).toBe(true);
    expect(failures.some((failure) => failure.includes('was accepted'))).toBe(true);
  });
});
