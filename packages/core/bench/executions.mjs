// Execution records, measured: the same no-op call through a gateway whose record lives in the
// default in-memory store, and through one whose store keeps nothing — without a call id, and with
// a framework's call id (then the result is kept for replays too). `unnamedBare` is what the
// gateway costs besides its record.
import { z } from 'zod';
import { median, perCallMicros } from './measure.mjs';

/** An execution store that keeps nothing: what the gateway costs besides its record. */
const nothingKept = {
  begin: (record) => ({ created: true, record }),
  complete: () => undefined,
  get: () => undefined,
  findCall: () => undefined,
  list: () => ({ items: [] }),
};

export async function benchExecutions(core) {
  const { createToolGateway, defineTool } = core;
  const input = z.object({ text: z.string() });
  const tool = defineTool({
    name: 'noop',
    description: 'Does nothing.',
    input,
    execute: ({ text }) => ({ ok: true, length: text.length }),
  });
  const recorded = createToolGateway({ env: {}, tracing: false });
  const bare = createToolGateway({
    env: {},
    tracing: false,
    executions: { store: nothingKept, results: 'inline' },
  });
  const args = { text: 'hello' };
  let next = 0;
  // No invocation context: the same call as the gateway row of the core table.
  const named = (gateway) => () => {
    next += 1;
    return gateway.invoke(tool, args, { callId: `call_${next}` });
  };
  const unnamed = (gateway) => () => gateway.invoke(tool, args);
  const rows = { named: [[], []], unnamed: [[], []] };
  for (let round = 0; round < 7; round += 1) {
    const options = { samples: 15, batch: 1000, warmup: 3000 };
    rows.unnamed[0].push(await perCallMicros(unnamed(bare), options));
    rows.unnamed[1].push(await perCallMicros(unnamed(recorded), options));
    rows.named[0].push(await perCallMicros(named(bare), options));
    rows.named[1].push(await perCallMicros(named(recorded), options));
  }
  const [unnamedBare, unnamedRecorded, namedBare, namedRecorded] = [
    rows.unnamed[0],
    rows.unnamed[1],
    rows.named[0],
    rows.named[1],
  ].map(median);
  const recordCost = namedRecorded - namedBare;
  return {
    unnamedBare,
    rows: [
      ['no call id, a store that keeps nothing', unnamedBare.toFixed(2), '—'],
      [
        'no call id, in-memory record',
        unnamedRecorded.toFixed(2),
        (unnamedRecorded - unnamedBare).toFixed(2),
      ],
      ['framework call ids, a store that keeps nothing', namedBare.toFixed(2), '—'],
      [
        'framework call ids, in-memory record and result',
        namedRecorded.toFixed(2),
        recordCost.toFixed(2),
      ],
    ],
    targets: [
      [
        `the execution record costs under 5 µs per call in memory (${recordCost.toFixed(2)} µs with call ids and results kept)`,
        recordCost < 5,
      ],
    ],
  };
}
