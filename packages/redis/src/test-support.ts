// For this package's tests only: the Redis server of the run, and a describe() that skips loudly
// (or fails, when KSADK_TEST_SERVICES_REQUIRED=1) without one.
import { randomUUID } from 'node:crypto';
import { describe, inject, it } from 'vitest';

export { testApprovalRecord } from '../../../test-support/approval-record.js';
export { freePort } from '../../../test-support/free-port.js';

import { fixtureRunner, fixtureStarter } from '../../../test-support/run-fixture.js';

/** Runs a test fixture of this package in its own `node` process (TypeScript through tsx). */
export const runFixture = fixtureRunner(import.meta.url);

/** Starts a test fixture of this package and tells when it printed a given line. */
export const startFixture = fixtureStarter(import.meta.url);

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    serviceProblems: string[];
    servicesRequired: boolean;
  }
}

/** The URL of the run's Redis server, or '' when none could be started. */
export const redisUrl: string = inject('redisUrl');

/** A key prefix of its own for one test, so runs and tests never see each other's keys. */
export const uniquePrefix = (): string => `ksadk-test:${randomUUID()}:`;

/** `describe` when Redis is there; otherwise a loud skip, or a failure when services are required. */
export function describeWithRedis(name: string, body: () => void): void {
  if (!redisUrl) {
    const why = `no Redis server for "${name}": ${inject('serviceProblems').join('; ') || 'none started'}`;
    if (inject('servicesRequired')) {
      describe(name, () => {
        it('has a Redis server (KSADK_TEST_SERVICES_REQUIRED=1)', () => {
          throw new Error(why);
        });
      });
      return;
    }
    console.warn(`\n!!! SKIPPED ${why}. Install redis-server or set KSADK_TEST_REDIS_URL.\n`);
  }
  describe.skipIf(!redisUrl)(name, body);
}
