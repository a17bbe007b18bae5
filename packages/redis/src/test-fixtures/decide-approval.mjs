// Test fixture: a host process that decides one approval request, run with
// `node --conditions=@ksadk/source --import tsx`.
// Usage: decide-approval.mjs <redisUrl> <keyPrefix> <secret> <approvalId> <decisionJson>
// Decides as principal acct-a / alice and prints the grant's token ('' for a rejection).
import { createToolGateway, decideApproval } from '@ksadk/core';
import { createRedisApprovalStore } from '../redis-approval-store.ts';

const [url, keyPrefix, secret, id, decision] = process.argv.slice(2);
const approvalStore = createRedisApprovalStore({ url, keyPrefix, timeoutMs: 15_000 });
const gateway = createToolGateway({ env: {}, approvalStore, approvalSecret: secret });
const grant = await decideApproval(gateway, id, JSON.parse(decision), {
  principal: { accountId: 'acct-a', userId: 'alice' },
});
process.stdout.write(`${grant?.token ?? ''}\n`);
await approvalStore.close();
