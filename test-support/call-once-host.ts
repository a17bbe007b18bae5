// For the store packages' test fixtures: one host process of the cross-process execution tests.
// At the start time, a gateway on the shared store calls `append_line` once as acct-a / alice / s1
// with the given call id, and prints its result as the last line. The tool appends a line to the
// log and prints RUNNING; with `hang` it never returns. Imports nothing from the packages: the
// fixture hands in core's functions, zod and its store.
import { appendFileSync, readFileSync } from 'node:fs';

type Result = Record<string, unknown>;

/** What the host needs from its fixture. */
export interface CallOnceHost {
  readonly core: {
    createToolGateway(options: Record<string, unknown>): {
      invoke(tool: unknown, args: unknown, options?: Record<string, unknown>): Promise<Result>;
    };
    defineTool(definition: Record<string, unknown>): unknown;
    runWithInvocationContext<T>(context: Record<string, string>, fn: () => Promise<T>): Promise<T>;
  };
  readonly z: { object(shape: Record<string, unknown>): unknown; string(): unknown };
  /** The shared execution store; `get` connects it (and migrates) before the start time. */
  readonly store: { get(id: string): Promise<unknown>; close(): Promise<void> };
  /** `<persistDir> <logFile> <callId> <write|hang> <startAtEpochMs>` */
  readonly argv: readonly string[];
}

/** Runs the host: one call at the start time, its result printed as the last line. */
export async function callOnce({ core, z, store, argv }: CallOnceHost): Promise<void> {
  const [persistDir, logFile, callId, mode, startAt] = argv as [
    string,
    string,
    string,
    string,
    string,
  ];
  const appendLine = core.defineTool({
    name: 'append_line',
    description: 'Appends a line to a file.',
    input: z.object({ line: z.string() }),
    policy: { riskLevel: 'low', sideEffects: ['file_write'] },
    timeoutMs: 1_500,
    execute: async ({ line }: { line: string }) => {
      appendFileSync(logFile, `${line} ${process.pid}\n`);
      process.stdout.write('RUNNING\n');
      if (mode === 'hang') await new Promise(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const n = readFileSync(logFile, 'utf8').trim().split('\n').length;
      return { ok: true, n, pid: process.pid };
    },
  });
  const gateway = core.createToolGateway({
    env: {},
    budget: { persistDir },
    executions: { store },
  });
  await store.get('exec_warm_up'); // connected (and migrated) before the start line
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
  const result = await core.runWithInvocationContext(
    { accountId: 'acct-a', userId: 'alice', sessionId: 's1' },
    () => gateway.invoke(appendLine, { line: 'hello' }, { callId }),
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await store.close();
}
