// Redis and PostgreSQL for the example's tests: the servers named by KSADK_TEST_REDIS_URL and
// KSADK_TEST_POSTGRES_URL (.ci/run starts them), else private ones for this run, stopped after it.
// ADK's sessions get a database of their own: its session service reads the catalogue's columns
// when it starts, and in the shared database, after every other test's tables, that query took
// minutes under the full CI.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { testServices } from '../../scripts/test-services.mjs';

/** A fresh database on the server of `url`, and how to drop it. */
async function ownDatabase(url) {
  const name = `ksadk_adk_sessions_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const own = new URL(url);
  own.pathname = `/${name}`;
  const drop = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
  return { url: own.href, drop };
}

/** @param {import('vitest/node').TestProject} project */
export default async function setup(project) {
  const services = await testServices();
  const sessions = services.postgresUrl ? await ownDatabase(services.postgresUrl) : undefined;
  project.provide('redisUrl', services.redisUrl ?? '');
  project.provide('postgresUrl', services.postgresUrl ?? '');
  project.provide('adkSessionsUrl', sessions?.url ?? '');
  project.provide('serviceProblems', services.problems);
  project.provide('servicesRequired', process.env.KSADK_TEST_SERVICES_REQUIRED === '1');
  return async () => {
    await sessions?.drop().catch(() => undefined);
    await services.stop();
  };
}
