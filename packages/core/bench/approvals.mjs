// Approvals that people live with, measured: a call a standing grant lets through, against the
// same call of a tool that needs no approval (both in an invocation context, in-memory store); and
// the inbox — 100 pending requests listed out of 10,000.
import { z } from 'zod';
import { median, perCallMicros } from './measure.mjs';

export async function benchApprovals(core) {
  const { createToolGateway, createInMemoryApprovalStore, defineTool, runWithInvocationContext } =
    core;
  const input = z.object({ text: z.string() });
  const execute = ({ text }) => ({ ok: true, length: text.length });
  const open = defineTool({ name: 'read_note', description: 'Reads.', input, execute });
  const gated = defineTool({
    name: 'write_note',
    description: 'Writes.',
    input,
    policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
    execute,
  });
  const gateway = createToolGateway({
    env: {},
    tracing: false,
    approvalStore: createInMemoryApprovalStore({ audit: { perAccount: 10_000, total: 20_000 } }),
  });
  const context = { accountId: 'acct', userId: 'u', sessionId: 's' };
  const args = { text: 'hello' };
  await runWithInvocationContext(context, async () => {
    const first = await gateway.invoke(gated, args);
    await gateway.approve(first.approval_request.id, { always: 'session' });
  });
  const inContext = (tool) => () =>
    runWithInvocationContext(context, () => gateway.invoke(tool, args));
  const ungated = [];
  const granted = [];
  for (let round = 0; round < 7; round += 1) {
    ungated.push(await perCallMicros(inContext(open), { samples: 15, batch: 500, warmup: 2000 }));
    granted.push(await perCallMicros(inContext(gated), { samples: 15, batch: 500, warmup: 2000 }));
  }
  const added = median(granted) - median(ungated);

  const inbox = createToolGateway({
    env: {},
    tracing: false,
    approvalStore: createInMemoryApprovalStore({
      perSession: { maxRecords: 20_000 },
      perAccount: { maxRecords: 20_000 },
    }),
  });
  await runWithInvocationContext(context, async () => {
    for (let index = 0; index < 10_000; index += 1)
      await inbox.invoke(gated, { text: `request ${index}` });
  });
  const listTimes = [];
  for (let round = 0; round < 21; round += 1) {
    const started = performance.now();
    const page = await runWithInvocationContext(context, () =>
      inbox.listApprovalRequests({ limit: 100 }),
    );
    listTimes.push(performance.now() - started);
    if (page.items.length !== 100) throw new Error('the inbox listed the wrong number of requests');
  }
  const listMs = median(listTimes);
  return {
    rows: [
      ['low-risk call, no approval needed (in a context)', median(ungated).toFixed(2), '—'],
      [
        'medium-risk call let through by a standing grant',
        median(granted).toFixed(2),
        added.toFixed(2),
      ],
      ['listApprovalRequests: 100 of 10,000 pending (ms)', listMs.toFixed(2), '—'],
    ],
    targets: [
      [
        `a call let through by a standing grant costs under 20 µs more (${added.toFixed(1)} µs)`,
        added < 20,
      ],
      [
        `listing 100 pending requests of 10,000 under 5 ms in memory (${listMs.toFixed(2)} ms)`,
        listMs < 5,
      ],
    ],
  };
}
