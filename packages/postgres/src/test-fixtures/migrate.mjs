// Test fixture: one process of the concurrent-migration test, run with
// `node --conditions=@ksadk/source --import tsx`.
// Usage: migrate.mjs <postgresUrl> <schema> <startAtEpochMs>
// Prints the versions this process applied, as JSON.
import pg from 'pg';
import { migratePostgres } from '../migrations.ts';

const [connectionString, schema, startAt] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString });
await pool.query('SELECT 1');
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const { applied } = await migratePostgres(pool, { schema });
process.stdout.write(`${JSON.stringify(applied)}\n`);
await pool.end();
