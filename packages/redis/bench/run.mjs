// pnpm bench (in packages/redis): the approval round trip the gateway makes for one gated call —
// create the request, approve it (pending → approved), consume the grant (approved → consumed) —
// on Redis and on core's in-memory store; the execution record written around every call (begin,
// then complete) on Redis and in memory; and a memory save + search on Redis against core's
// file backend. Runs against the built package (dist/) and a Redis from scripts/test-services.mjs
// (KSADK_TEST_REDIS_URL, or a private server started and stopped here).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createInMemoryApprovalStore, createInMemoryExecutionStore } from '@ksadk/core';
import { createFileMemoryBackend } from '@ksadk/core/memory';
import { testServices } from '../../../scripts/test-services.mjs';
import { perCallMicros, printTable } from '../../core/bench/measure.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const { createRedisApprovalStore, createRedisExecutionStore, createRedisMemoryBackend } =
  await import(pathToFileURL(`${packageDir}dist/index.js`).href);

const services = await testServices();
if (!services.redisUrl) {
  console.error(`no Redis server: ${services.problems.join('; ')}`);
  await services.stop();
  process.exit(1);
}
const keyPrefix = `ksadk-bench:${randomBytes(6).toString('hex')}:`;
console.log(`KsADK Redis benchmarks — node ${process.version}, ${services.redisUrl}`);

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

const options = { batch: 100, samples: 25, warmup: 500 };
const redisStore = createRedisApprovalStore({ url: services.redisUrl, keyPrefix });
const memoryStore = createInMemoryApprovalStore();
const inMemory = await perCallMicros(roundTrip(memoryStore), options);
const onRedis = await perCallMicros(roundTrip(redisStore), options);
await redisStore.close();

printTable(
  'Approval round trip: create → approve → consume (median µs per round trip, in sequence)',
  ['store', 'µs/round trip', 'vs in-memory'],
  [
    ['@ksadk/core createInMemoryApprovalStore', inMemory.toFixed(1), '1.0×'],
    [
      '@ksadk/redis createRedisApprovalStore',
      onRedis.toFixed(1),
      `${(onRedis / inMemory).toFixed(1)}×`,
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

const sharedRedisExecutions = createRedisExecutionStore({ url: services.redisUrl, keyPrefix });
const recordInMemory = await perCallMicros(recordRound(createInMemoryExecutionStore()), options);
const recordShared = await perCallMicros(recordRound(sharedRedisExecutions), options);
await sharedRedisExecutions.close();

printTable(
  'Execution record: begin → complete (median µs per call, in sequence)',
  ['store', 'µs/call', 'vs in-memory'],
  [
    ['@ksadk/core createInMemoryExecutionStore', recordInMemory.toFixed(1), '1.0×'],
    [
      '@ksadk/redis createRedisExecutionStore',
      recordShared.toFixed(1),
      `${(recordShared / recordInMemory).toFixed(1)}×`,
    ],
  ],
);

/** Saves one memory and searches the scope (of `records` memories) for a term. */
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
    { batch: 50, samples: 15, warmup: 50 },
  );
  const search = await perCallMicros(() => backend.search(scope, 'topic7 coffee', 5), {
    batch: 10,
    samples: 15,
    warmup: 10,
  });
  return { save, search };
}

const dir = await mkdtemp(path.join(tmpdir(), 'ksadk-bench-memory-'));
const redisMemory = createRedisMemoryBackend({ url: services.redisUrl, keyPrefix });
const rows = [];
for (const records of [100, 1000]) {
  const file = await memoryRound(createFileMemoryBackend({ dir }), records);
  const redis = await memoryRound(redisMemory, records);
  rows.push(
    [`file (${records} in scope)`, file.save.toFixed(1), file.search.toFixed(1)],
    [`redis (${records} in scope)`, redis.save.toFixed(1), redis.search.toFixed(1)],
  );
}
printTable('Memory: one save, one search (median µs)', ['backend', 'save µs', 'search µs'], rows);

// Leave nothing behind on a shared server.
const { Redis } = await import('ioredis');
const cleaner = new Redis(services.redisUrl);
const stale = await cleaner.keys(`${keyPrefix}*`);
if (stale.length > 0) await cleaner.del(...stale);
await cleaner.quit();
await redisMemory.close();
await rm(dir, { recursive: true, force: true });
await services.stop();
