// Test fixture: a host process that decides one approval request, run with
// `node --conditions=@ksadk/source --import tsx`.
// Usage: decide-approval.mjs <postgresUrl> <schema> <secret> <approvalId> <decisionJson>
// Decides as principal acct-a / alice and prints the grant's token ('' for a rejection).
import { createToolGateway, decideApproval } from '@ksadk/core';
import { createPostgresApprovalStore } from '../postgres-approval-store.ts';

const [connectionString, schema, secret, id, decision] = process.argv.slice(2);
const approvalStore = createPostgresApprovalStore({ connectionString, schema, timeoutMs: 30_000 });
const gateway = createToolGateway({ env: {}, approvalStore, approvalSecret: secret });
const grant = await decideApproval(gateway, id, JSON.parse(decision), {
  principal: { accountId: 'acct-a', userId: 'alice' },
});
process.stdout.write(`${grant?.token ?? ''}\n`);
await approvalStore.close();
