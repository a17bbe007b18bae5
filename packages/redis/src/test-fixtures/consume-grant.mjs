// Test fixture: one process of the cross-process consume test, run with
// `node --conditions=@ksadk/source --import tsx`.
// Usage: consume-grant.mjs <redisUrl> <keyPrefix> <approvalId> <attempts> <startAtEpochMs>
// Prints the number of consumes that succeeded in this process.
import { createRedisApprovalStore } from '../redis-approval-store.ts';

const [url, keyPrefix, id, attempts, startAt] = process.argv.slice(2);
const store = createRedisApprovalStore({ url, keyPrefix, timeoutMs: 15_000 });
await store.get(id); // connected and scripts loaded before the start line
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const outcomes = await Promise.all(
  Array.from({ length: Number(attempts) }, () => store.transition(id, 'approved', 'consumed')),
);
process.stdout.write(`${outcomes.filter(Boolean).length}\n`);
await store.close();
