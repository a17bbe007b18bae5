// For this package's tests only: the PostgreSQL server of the run, and a describe() that skips
// loudly (or fails, when KSADK_TEST_SERVICES_REQUIRED=1) without one.
import { randomUUID } from 'node:crypto';
import { describe, inject, it } from 'vitest';
import { freePort } from '../../../test-support/free-port.js';
import { fixtureRunner, fixtureStarter } from '../../../test-support/run-fixture.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    serviceProblems: string[];
    servicesRequired: boolean;
  }
}

/** The URL of the run's PostgreSQL server, or '' when none could be started. */
export const postgresUrl: string = inject('postgresUrl');

/** A schema of its own for one test, so runs and tests never see each other's tables. */
export const uniqueSchema = (): string =>
  `ksadk_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;

/** `describe` when PostgreSQL is there; otherwise a loud skip, or a failure when services are required. */
export function describeWithPostgres(name: string, body: () => void): void {
  if (!postgresUrl) {
    const why = `no PostgreSQL server for "${name}": ${inject('serviceProblems').join('; ') || 'none started'}`;
    if (inject('servicesRequired')) {
      describe(name, () => {
        it('has a PostgreSQL server (KSADK_TEST_SERVICES_REQUIRED=1)', () => {
          throw new Error(why);
        });
      });
      return;
    }
    console.warn(`\n!!! SKIPPED ${why}. Install postgresql or set KSADK_TEST_POSTGRES_URL.\n`);
  }
  describe.skipIf(!postgresUrl)(name, body);
}

/** Runs a test fixture in its own `node` process (TypeScript sources through tsx). */
export const runFixture = fixtureRunner(import.meta.url);

/** Starts a test fixture of this package and tells when it printed a given line. */
export const startFixture = fixtureStarter(import.meta.url);

/** A port nothing listens on. */
export const closedPort = freePort;
