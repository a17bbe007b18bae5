import type { ResultBudget } from '../budget/result-budget.js';
import { readPersistedOutput } from '../budget/result-store.js';
import type { InvocationContext } from '../context/invocation-context.js';
import type { ExecutionRecord } from '../executions/execution-record.js';
import type { ToolResult } from './results.js';

/**
 * The result a record kept — inline, or saved in the result store of the record's own account and
 * session — or `undefined` when it kept none (or it is gone or unreadable).
 */
export async function readKeptResult(
  record: ExecutionRecord,
  budget: ResultBudget,
  context: InvocationContext,
): Promise<ToolResult | undefined> {
  let json = record.resultJson;
  if (json === undefined && record.resultHandle !== undefined) {
    const bytes = await readPersistedOutput(record.resultHandle, budget, context).catch(
      () => undefined,
    );
    json = bytes?.toString('utf8');
  }
  if (json === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null ? (value as ToolResult) : undefined;
  } catch {
    return undefined;
  }
}
