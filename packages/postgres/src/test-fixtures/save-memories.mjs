// Test fixture: one writer process of the two-process memory test, run with
// `node --conditions=@ksadk/source --import tsx`.
// Usage: save-memories.mjs <postgresUrl> <schema> <worker> <count> <startAtEpochMs>
// Prints one JSON line per acknowledged save: { id }.
import { createPostgresMemoryBackend } from '../postgres-memory-backend.ts';

const [connectionString, schema, worker, count, startAt] = process.argv.slice(2);
const memory = createPostgresMemoryBackend({ connectionString, schema });
await memory.search({ accountId: 'acme', userId: 'shared' }, '', 1); // migrated before the start
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const scope = { accountId: 'acme', userId: 'shared' };
await Promise.all(
  Array.from({ length: Number(count) }, async (_, index) => {
    const record = await memory.save(scope, { content: `worker ${worker} record ${index}` });
    process.stdout.write(`${JSON.stringify({ id: record.id })}\n`);
  }),
);
await memory.close();
