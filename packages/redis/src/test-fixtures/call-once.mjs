// Test fixture: one host process of the cross-process execution tests, run with
// `node --conditions=@ksadk/source --import tsx`.
// Usage: call-once.mjs <redisUrl> <keyPrefix> <persistDir> <logFile> <callId> <write|hang> <startAtEpochMs>
// At the start time, a gateway on the shared store calls `append_line` once as acct-a / alice / s1
// with the given call id, and prints its result as the last line. The tool appends a line to the
// log and prints RUNNING; with `hang` it never returns.
import { appendFileSync, readFileSync } from 'node:fs';
import { createToolGateway, defineTool, runWithInvocationContext } from '@ksadk/core';
import { z } from 'zod';
import { createRedisExecutionStore } from '../redis-execution-store.ts';

const [url, keyPrefix, persistDir, logFile, callId, mode, startAt] = process.argv.slice(2);
const store = createRedisExecutionStore({ url, keyPrefix, timeoutMs: 15_000 });
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
    const n = readFileSync(logFile, 'utf8').trim().split('\n').length;
    return { ok: true, n, pid: process.pid };
  },
});
const gateway = createToolGateway({ env: {}, budget: { persistDir }, executions: { store } });
await store.get('exec_warm_up'); // connected before the start line
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const result = await runWithInvocationContext(
  { accountId: 'acct-a', userId: 'alice', sessionId: 's1' },
  () => gateway.invoke(appendLine, { line: 'hello' }, { callId }),
);
process.stdout.write(`${JSON.stringify(result)}\n`);
await store.close();
