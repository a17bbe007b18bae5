import type { ResultBudget } from '../budget/result-budget.js';
import { checkOptions } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { type ExecutionSummary, summaryOfRecord } from '../executions/execution-record.js';
import type { ExecutionStore } from '../executions/execution-store.js';
import { principalOf } from './approval/approval-owner.js';
import type { ApprovalPage } from './approval/store-queries.js';
import type { ApprovalPrincipal, ExecutionDetail, ExecutionListOptions } from './gateway-types.js';
import { readKeptResult } from './kept-result.js';

const OUTCOMES = new Set(['running', 'succeeded', 'failed', 'unknown']);

const timeOf = (value: Date | number | undefined, name: string): number | undefined => {
  if (value === undefined) return undefined;
  const at = value instanceof Date ? value.getTime() : value;
  if (typeof at !== 'number' || Number.isNaN(at))
    throw new KsadkError('invalid_arguments', `${name} must be a Date or epoch milliseconds.`);
  return at;
};

/**
 * The principal's execution records, newest first: only its own account's (and user's), or every
 * account's for `{ admin: true }`.
 *
 * @throws {KsadkError} `invalid_arguments` for a malformed principal, outcome or time.
 */
export async function listExecutions(
  store: ExecutionStore,
  query: ExecutionListOptions,
): Promise<ApprovalPage<ExecutionSummary>> {
  checkOptions(
    query,
    {
      principal: true,
      limit: true,
      cursor: true,
      sessionId: true,
      toolName: true,
      since: true,
      outcome: true,
    },
    'gateway.executions()',
  );
  const principal = principalOf(query.principal);
  if (query.outcome !== undefined && !OUTCOMES.has(query.outcome))
    throw new KsadkError(
      'invalid_arguments',
      "outcome must be 'running', 'succeeded', 'failed' or 'unknown'.",
    );
  const now = Date.now();
  const since = timeOf(query.since, 'since');
  const page = await store.list({
    ...('admin' in principal
      ? {}
      : {
          accountId: principal.accountId,
          ...(principal.userId !== undefined ? { userId: principal.userId } : {}),
        }),
    ...(query.sessionId !== undefined ? { sessionId: query.sessionId } : {}),
    ...(query.toolName !== undefined ? { toolName: query.toolName } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(query.outcome !== undefined ? { outcome: query.outcome } : {}),
    now,
    limit: query.limit ?? 50,
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
  });
  return {
    items: page.items.map((record) => summaryOfRecord(record, now)),
    ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
  };
}

/**
 * One execution record, if it exists and the principal may see it (its own account, and its own
 * user when the principal names one; any for `{ admin: true }`), with the result it kept.
 *
 * @throws {KsadkError} `invalid_arguments` for a malformed principal.
 */
export async function getExecution(
  store: ExecutionStore,
  budget: ResultBudget,
  id: string,
  given: ApprovalPrincipal | undefined,
): Promise<ExecutionDetail | undefined> {
  const principal = principalOf(given);
  if (typeof id !== 'string' || id.length > 200) return undefined;
  const record = await store.get(id);
  if (!record) return undefined;
  if (!('admin' in principal)) {
    if (record.accountId !== principal.accountId) return undefined;
    if (
      principal.userId !== undefined &&
      record.userId !== '' &&
      record.userId !== principal.userId
    )
      return undefined;
  }
  const result = await readKeptResult(record, budget, {
    accountId: record.accountId,
    ...(record.userId ? { userId: record.userId } : {}),
    ...(record.sessionId ? { sessionId: record.sessionId } : {}),
  });
  return {
    ...summaryOfRecord(record, Date.now()),
    ...argumentsOf(record.argumentsJson),
    ...(result ? { result } : {}),
  };
}

/** The recorded arguments: the object, or the preview a record keeps of large ones. */
function argumentsOf(json: string | undefined): {
  arguments?: Record<string, unknown>;
  argumentsPreview?: string;
} {
  if (json === undefined) return {};
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === 'string') return { argumentsPreview: value };
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return { arguments: value as Record<string, unknown> };
  } catch {
    // A record written by something else: no arguments shown.
  }
  return {};
}
