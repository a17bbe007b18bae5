// One of several processes presenting the same grant at once: `node --import tsx
// src/consume-race.ts <store> <namespace> <sent log> <grant token> <calls>`. Prints how many of its
// calls ran the tool.
import { createToolGateway, runWithInvocationContext } from '@ksadk/core';
import { INVOICE_ARGS, invoiceTool } from './invoice-tool.js';
import { approvalStoreFor, type StoreKind } from './stores.js';

const [store = '', namespace = '', sentLog = '', token = '', calls = '0'] = process.argv.slice(2);
const approvalStore = await approvalStoreFor(
  store as StoreKind,
  { redisUrl: process.env['REDIS_URL'] ?? '', postgresUrl: process.env['DATABASE_URL'] ?? '' },
  namespace,
  // 250 calls at once queue behind the pool's connections; on a loaded CI machine that wait can
  // pass the default 10 s (the test is about exactly-once, not latency).
  60_000,
);
const gateway = createToolGateway({ approvalStore });
const tool = invoiceTool(sentLog);
const results = await runWithInvocationContext(
  { accountId: 'acme-corp', userId: 'alice', sessionId: 'race' },
  () =>
    Promise.all(
      Array.from({ length: Number(calls) }, () =>
        gateway.invoke(tool, INVOICE_ARGS, { approval: token }),
      ),
    ),
);
await approvalStore.close?.();
const ran = results.filter((result) => result.ok).length;
const unexpected = results.filter(
  (result) => !result.ok && result['error_type'] !== 'approval_required',
);
process.stdout.write(`${JSON.stringify({ ran, unexpected: unexpected.slice(0, 3) })}\n`);
process.exit(0);
