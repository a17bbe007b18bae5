// Redis and PostgreSQL for the tests of `ksadk approvals`: the servers named by KSADK_TEST_REDIS_URL and
// KSADK_TEST_POSTGRES_URL, else private ones started for this run (scripts/test-services.mjs) and stopped after it.
import { testServices } from '../../scripts/test-services.mjs';

/** @param {import('vitest/node').TestProject} project */
export default async function setup(project) {
  const services = await testServices();
  project.provide('redisUrl', services.redisUrl ?? '');
  project.provide('postgresUrl', services.postgresUrl ?? '');
  project.provide('serviceProblems', services.problems);
  project.provide('servicesRequired', process.env.KSADK_TEST_SERVICES_REQUIRED === '1');
  return () => services.stop();
}
