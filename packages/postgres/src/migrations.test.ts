import { Client, Pool } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LATEST_MIGRATION, migratePostgres } from './migrations.js';
import { describeWithPostgres, postgresUrl, runFixture, uniqueSchema } from './test-support.js';

describeWithPostgres('PostgreSQL migrations', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: postgresUrl });
  });
  afterAll(() => pool?.end());

  it('4 processes migrating one schema at once: each version is applied exactly once', {
    timeout: 60_000,
  }, async () => {
    const schema = uniqueSchema();
    const startAt = String(Date.now() + 4_000);
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => runFixture('migrate.mjs', [postgresUrl, schema, startAt])),
    );
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
    const applied = runs.map((run) => JSON.parse(run.stdout) as number[]);
    const all = Array.from({ length: LATEST_MIGRATION }, (_, index) => index + 1);
    expect(applied.filter((versions) => versions.length > 0)).toEqual([all]);
    const { rows } = await pool.query(
      `SELECT version FROM "${schema}".ksadk_schema_migrations ORDER BY version`,
    );
    expect(rows.map((row) => row.version)).toEqual(all);
  });

  it('a second run applies nothing; a single connection works too', async () => {
    const schema = uniqueSchema();
    expect(await migratePostgres(pool, { schema })).toEqual({
      applied: [1, 2, 3, 4, 5, 6, 7],
      version: LATEST_MIGRATION,
    });
    const client = new Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      expect((await migratePostgres(client, { schema })).applied).toEqual([]);
    } finally {
      await client.end();
    }
    const { rows } = await pool.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
      [schema],
    );
    expect(rows.map((row) => row.table_name)).toEqual([
      'ksadk_approval_audit',
      'ksadk_approval_audit_counts',
      'ksadk_approval_totals',
      'ksadk_approvals',
      'ksadk_credential_requests',
      'ksadk_credentials',
      'ksadk_execution_counts',
      'ksadk_execution_totals',
      'ksadk_executions',
      'ksadk_knowledge',
      'ksadk_memories',
      'ksadk_schema_migrations',
      'ksadk_standing_grants',
    ]);
  });

  it('refuses a schema name that is not a plain identifier, before touching the database', async () => {
    await expect(
      migratePostgres(pool, { schema: 'a"; DROP SCHEMA public; --' }),
    ).rejects.toMatchObject({
      code: 'invalid_config',
    });
  });
});
