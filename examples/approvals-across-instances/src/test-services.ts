// For this example's tests: the servers of the run, and a describe() that needs them — skipped
// with a loud message without them, or failed when KSADK_TEST_SERVICES_REQUIRED=1 (CI).
import { describe, inject, it } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    postgresUrl: string;
    adkSessionsUrl: string;
    serviceProblems: string[];
    servicesRequired: boolean;
  }
}

/** The run's servers ('' when one could not start). */
export const services = { redisUrl: inject('redisUrl'), postgresUrl: inject('postgresUrl') };

/** `describe` when the named servers are there. */
export function describeWithServices(
  name: string,
  needs: readonly ('redis' | 'postgres')[],
  body: () => void,
): void {
  const missing = needs.filter(
    (need) => !(need === 'redis' ? services.redisUrl : services.postgresUrl),
  );
  if (missing.length > 0) {
    const why = `no ${missing.join(' or ')} server for "${name}": ${inject('serviceProblems').join('; ') || 'none started'}`;
    if (inject('servicesRequired')) {
      describe(name, () => {
        it('has its servers (KSADK_TEST_SERVICES_REQUIRED=1)', () => {
          throw new Error(why);
        });
      });
      return;
    }
    console.warn(
      `\n!!! SKIPPED ${why}. Install redis-server and postgresql, or set KSADK_TEST_REDIS_URL and KSADK_TEST_POSTGRES_URL.\n`,
    );
  }
  describe.skipIf(missing.length > 0)(name, body);
}
