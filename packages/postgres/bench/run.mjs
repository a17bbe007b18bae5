// pnpm bench (in packages/postgres): the approval round trip the gateway makes for one gated
// call — create the request, approve it (pending → approved), consume the grant (approved →
// consumed) — on PostgreSQL and on core's in-memory store; and a memory save + search on
// PostgreSQL against core's file backend. Runs against the built package (dist/) and a server
// from scripts/test-services.mjs (KSADK_TEST_POSTGRES_URL, or a private one started and stopped here).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createInMemoryApprovalStore } from '@ksadk/core';
import { createFileMemoryBackend } from '@ksadk/core/memory';
import pg from 'pg';
import { testServices } from '../../../scripts/test-services.mjs';
import { perCallMicros, printTable } from '../../core/bench/measure.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const { createPostgresApprovalStore, createPostgresMemoryBackend } = await import(
  pathToFileURL(`${packageDir}dist/index.js`).href
);

const services = await testServices();
if (!services.postgresUrl) {
  console.error(`no PostgreSQL server: ${services.problems.join('; ')}`);
  await services.stop();
  process.exit(1);
}
const schema = `ksadk_bench_${randomBytes(6).toString('hex')}`;
const pool = new pg.Pool({ connectionString: services.postgresUrl, max: 4 });
console.log(`KsADK PostgreSQL benchmarks — node ${process.version}, schema ${schema}`);

let counter = 0;
/** One gateway-style round trip: a fresh request, approved, then its grant consumed. */
const roundTrip = (store) => async () => {
  counter += 1;
  const now = Date.now();
  const id = `appr_${randomBytes(16).toString('hex')}`;
  await store.create({
    id,
    bindingKey: id,
    toolName: 'write_note',
    argsDigest: 'digest',
    arguments: { path: 'notes.md', text: 'hello' },
    argumentsChars: 36,
    accountId: 'acme',
    userId: 'alice',
    sessionId: `session_${counter >> 6}`,
    riskLevel: 'high',
    sideEffects: ['write'],
    status: 'pending',
    createdAt: now,
    expiresAt: now + 60_000,
  });
  if (!(await store.transition(id, 'pending', 'approved', { decidedAt: now })))
    throw new Error('approve failed');
  if (!(await store.transition(id, 'approved', 'consumed'))) throw new Error('consume failed');
};

const postgresStore = createPostgresApprovalStore({ pool, schema });
const memoryStore = createInMemoryApprovalStore();
const inMemory = await perCallMicros(roundTrip(memoryStore), {
  batch: 100,
  samples: 25,
  warmup: 500,
});
const onPostgres = await perCallMicros(roundTrip(postgresStore), {
  batch: 50,
  samples: 20,
  warmup: 200,
});

printTable(
  'Approval round trip: create → approve → consume (median µs per round trip, in sequence)',
  ['store', 'µs/round trip', 'vs in-memory'],
  [
    ['@ksadk/core createInMemoryApprovalStore', inMemory.toFixed(1), '1.0×'],
    [
      '@ksadk/postgres createPostgresApprovalStore',
      onPostgres.toFixed(1),
      `${(onPostgres / inMemory).toFixed(1)}×`,
    ],
  ],
);

/** Fills a scope with `records` memories, then times one save and one search. */
async function memoryRound(backend, records) {
  const scope = { accountId: 'acme', userId: `user_${randomBytes(4).toString('hex')}` };
  for (let index = 0; index < records; index += 1)
    await backend.save(scope, { content: `fact ${index} about topic${index % 50} and coffee` });
  let turn = 0;
  const save = await perCallMicros(
    () => {
      turn += 1;
      return backend.save(scope, { content: `another fact ${turn}` });
    },
    { batch: 20, samples: 15, warmup: 20 },
  );
  const search = await perCallMicros(() => backend.search(scope, 'topic7 coffee', 5), {
    batch: 10,
    samples: 15,
    warmup: 10,
  });
  return { save, search };
}

const dir = await mkdtemp(path.join(tmpdir(), 'ksadk-bench-memory-'));
const postgresMemory = createPostgresMemoryBackend({ pool, schema });
const rows = [];
for (const records of [100, 1000]) {
  const file = await memoryRound(createFileMemoryBackend({ dir }), records);
  const postgres = await memoryRound(postgresMemory, records);
  rows.push(
    [`file (${records} + saves in scope)`, file.save.toFixed(1), file.search.toFixed(1)],
    [
      `postgres (${records} + saves in scope)`,
      postgres.save.toFixed(1),
      postgres.search.toFixed(1),
    ],
  );
}
printTable('Memory: one save, one search (median µs)', ['backend', 'save µs', 'search µs'], rows);

await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
await pool.end();
await rm(dir, { recursive: true, force: true });
await services.stop();
