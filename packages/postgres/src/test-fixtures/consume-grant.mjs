// Test fixture: one process of the cross-process consume test, run with
// `node --conditions=@ksadk/source --import tsx`.
// Usage: consume-grant.mjs <postgresUrl> <schema> <approvalId> <attempts> <startAtEpochMs>
// Prints the number of consumes that succeeded in this process.
import { createPostgresApprovalStore } from '../postgres-approval-store.ts';

const [connectionString, schema, id, attempts, startAt] = process.argv.slice(2);
const store = createPostgresApprovalStore({ connectionString, schema, timeoutMs: 30_000 });
await store.get(id); // connected and migrated before the start line
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const outcomes = await Promise.all(
  Array.from({ length: Number(attempts) }, () => store.transition(id, 'approved', 'consumed')),
);
process.stdout.write(`${outcomes.filter(Boolean).length}\n`);
await store.close();
