// One process of the cross-process execution tests: a gateway on a shared file execution store
// calls `append_line` once with a given call id and prints the result as one JSON line.
//   call-once.ts <storeDir> <persistDir> <logFile> <callId> <write|hang>
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import { runWithInvocationContext } from '../../context/invocation-context.js';
import { createToolGateway } from '../../gateway/create-tool-gateway.js';
import { defineTool } from '../../tool/define-tool.js';
import { createFileExecutionStore } from '../file-execution-store.js';

const [storeDir, persistDir, logFile, callId, mode] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const appendLine = defineTool({
  name: 'append_line',
  description: 'Appends a line to a file.',
  input: z.object({ line: z.string() }),
  policy: { riskLevel: 'low', sideEffects: ['file_write'] },
  timeoutMs: 1_500,
  execute: async ({ line }) => {
    appendFileSync(logFile, `${line} ${process.pid}\n`);
    process.stdout.write('RUNNING\n');
    if (mode === 'hang') await new Promise(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { ok: true, line, pid: process.pid };
  },
});
const gateway = createToolGateway({
  env: {},
  budget: { persistDir },
  executions: { store: createFileExecutionStore({ dir: storeDir }) },
});
const result = await runWithInvocationContext(
  { accountId: 'acct-a', userId: 'alice', sessionId: 's1' },
  () => gateway.invoke(appendLine, { line: 'hello' }, { callId }),
);
process.stdout.write(`${JSON.stringify(result)}\n`);
