// tool_search over a catalogue with 1,000 registered external tools: the per-query cost once the
// index is built (it is built at registration, not per query).
import { median } from './measure.mjs';

const TOOLS = 1_000;
const VERBS = [
  'read',
  'write',
  'search',
  'list',
  'delete',
  'fetch',
  'send',
  'create',
  'update',
  'sync',
];
const NOUNS = [
  'invoice',
  'ticket',
  'customer',
  'order',
  'report',
  'file',
  'email',
  'calendar',
  'user',
  'note',
];

/** Runs the tool_search benchmark with the built package; returns rows and targets. */
export async function benchToolSearch(core, catalogEntry) {
  const catalog = catalogEntry.createToolCatalog({ env: {} });
  catalog.registerExternalTools(
    Array.from({ length: TOOLS }, (_, index) => {
      const verb = VERBS[index % VERBS.length];
      const noun = NOUNS[Math.floor(index / VERBS.length) % NOUNS.length];
      return {
        name: `${verb}_${noun}_${index}`,
        description: `${verb} a ${noun} record in system ${index % 37}; returns the ${noun} with its id and status.`,
        parameters: {
          type: 'object',
          properties: { id: { type: 'string' }, status: { type: 'string' } },
        },
      };
    }),
    { group: 'crm' },
  );
  const search = catalog
    .getTools({ include: 'tool_search' })
    .find((tool) => tool.name === 'tool_search');
  if (!search) return { rows: [['tool_search not available', '']], targets: [] };
  const gateway = core.createToolGateway({ approvalMode: 'full', env: {} });
  const queries = [
    'update a customer ticket',
    'send email',
    'find invoices',
    'delete user note',
    '搜 文件',
  ];
  let found = 0;
  for (const query of queries) found += (await gateway.invoke(search, { query })).results.length;
  const samples = [];
  for (let round = 0; round < 30; round += 1) {
    const start = process.hrtime.bigint();
    for (let repeat = 0; repeat < 20; repeat += 1)
      for (const query of queries) await gateway.invoke(search, { query });
    samples.push(Number(process.hrtime.bigint() - start) / 1e6 / (20 * queries.length));
  }
  const perQuery = median(samples);
  return {
    rows: [
      [
        `tool_search (${TOOLS} external tools, ${queries.length} queries, ${found} results)`,
        perQuery.toFixed(3),
      ],
    ],
    targets: [[`tool_search under 0.5 ms per query (${perQuery.toFixed(3)} ms)`, perQuery < 0.5]],
  };
}
