// pnpm bench (in packages/postgres): the approval round trip the gateway makes for one gated
// call — create the request, approve it (pending → approved), consume the grant (approved →
// consumed) — on PostgreSQL and on core's in-memory store; the execution record written around
// every call (begin, then complete) on PostgreSQL and in memory; and a memory save + search on
// PostgreSQL against core's file backend. Runs against the built package (dist/) and a server
// from scripts/test-services.mjs (KSADK_TEST_POSTGRES_URL, or a private one started and stopped here).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createInMemoryApprovalStore, createInMemoryExecutionStore } from '@ksadk/core';
import { createFileMemoryBackend } from '@ksadk/core/memory';
import pg from 'pg';
import { testServices } from '../../../scripts/test-services.mjs';
import { perCallMicros, printTable } from '../../core/bench/measure.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const { createPostgresApprovalStore, createPostgresExecutionStore, createPostgresMemoryBackend } =
  await import(pathToFileURL(`${packageDir}dist/index.js`).href);

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

/** One call's execution record as the gateway writes it: begin before the run, complete after. */
const recordRound = (store) => async () => {
  counter += 1;
  const now = Date.now();
  const begun = await store.begin({
    id: `exec_${randomBytes(16).toString('hex')}`,
    callId: `call_${counter}`,
    callIdGiven: true,
    toolName: 'write_note',
    argsDigest: 'digest',
    accountId: 'acme',
    userId: 'alice',
    sessionId: `session_${counter >> 6}`,
    status: 'started',
    attempt: 1,
    startedAt: now,
    deadlineAt: now + 125_000,
    expiresAt: now + 86_400_000,
  });
  if (!begun.created) throw new Error('begin found another record');
  const ended = await store.complete(begun.record.id, {
    status: 'succeeded',
    endedAt: Date.now(),
    resultHandle: 'tool-results://call.result.json',
  });
  if (!ended) throw new Error('complete failed');
};

const recordInMemory = await perCallMicros(recordRound(createInMemoryExecutionStore()), {
  batch: 100,
  samples: 25,
  warmup: 500,
});
const recordOnPostgres = await perCallMicros(
  recordRound(createPostgresExecutionStore({ pool, schema })),
  { batch: 50, samples: 20, warmup: 200 },
);

printTable(
  'Execution record: begin → complete (median µs per call, in sequence)',
  ['store', 'µs/call', 'vs in-memory'],
  [
    ['@ksadk/core createInMemoryExecutionStore', recordInMemory.toFixed(1), '1.0×'],
    [
      '@ksadk/postgres createPostgresExecutionStore',
      recordOnPostgres.toFixed(1),
      `${(recordOnPostgres / recordInMemory).toFixed(1)}×`,
    ],
  ],
);

// The inbox: 100 pending requests listed out of 10,000 of one account, against the same on core's
// in-memory store.
const inboxQuotas = { perSession: { maxRecords: 20_000 }, perAccount: { maxRecords: 20_000 } };
const inboxStores = [
  ['@ksadk/core createInMemoryApprovalStore', createInMemoryApprovalStore(inboxQuotas), 5],
  [
    '@ksadk/postgres createPostgresApprovalStore',
    createPostgresApprovalStore({ pool, schema: `${schema}_inbox`, ...inboxQuotas }),
    20,
  ],
];
const inboxRows = [];
const inboxTargets = [];
for (const [name, store, bound] of inboxStores) {
  const now = Date.now();
  for (let start = 0; start < 10_000; start += 50)
    await Promise.all(
      Array.from({ length: 50 }, (_, offset) => {
        const id = `appr_${randomBytes(16).toString('hex')}`;
        return store.create({
          id,
          bindingKey: id,
          toolName: 'write_note',
          argsDigest: 'digest',
          arguments: { path: 'notes.md', text: `request ${start + offset}` },
          argumentsChars: 40,
          accountId: 'inbox',
          userId: 'alice',
          sessionId: `session_${(start + offset) % 20}`,
          riskLevel: 'medium',
          sideEffects: ['write'],
          status: 'pending',
          createdAt: now,
          expiresAt: now + 3_600_000,
        });
      }),
    );
  const times = [];
  for (let round = 0; round < 11; round += 1) {
    const started = performance.now();
    const page = await store.listRequests({
      accountId: 'inbox',
      status: 'pending',
      now: Date.now(),
      limit: 100,
    });
    times.push(performance.now() - started);
    if (page.items.length !== 100) throw new Error(`${name} listed ${page.items.length} requests`);
  }
  times.sort((a, b) => a - b);
  const ms = times[5];
  inboxRows.push([name, ms.toFixed(2)]);
  inboxTargets.push([
    `${name}: 100 of 10,000 pending under ${bound} ms (${ms.toFixed(2)} ms)`,
    ms < bound,
  ]);
}
printTable(
  'The inbox: 100 pending requests listed out of 10,000 (median ms of 11)',
  ['store', 'ms'],
  inboxRows,
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
await pool.query(`DROP SCHEMA IF EXISTS "${schema}_inbox" CASCADE`);
printTable(
  'Targets',
  ['target', 'met'],
  inboxTargets.map(([target, met]) => [target, met ? 'yes' : 'NO']),
);
if (inboxTargets.some(([, met]) => !met)) {
  console.error('\nTARGETS MISSED: measure on an idle machine before believing a miss.');
  process.exitCode = 1;
}
await pool.end();
await rm(dir, { recursive: true, force: true });
await services.stop();
