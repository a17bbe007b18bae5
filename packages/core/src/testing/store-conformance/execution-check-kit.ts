import { randomBytes } from 'node:crypto';
import { KsadkError } from '../../errors/ksadk-error.js';
import type { ExecutionQuotas } from '../../executions/execution-quotas.js';
import type { ExecutionRecord } from '../../executions/execution-record.js';
import type { ExecutionStore } from '../../executions/execution-store.js';
import type { StoreCheck } from './store-check.js';

/** Makes a fresh, empty execution store with the given quotas (unset ones at its defaults). */
export type ExecutionStoreFactory = (
  quotas: Partial<ExecutionQuotas>,
) => ExecutionStore | Promise<ExecutionStore>;

/** Makes one execution-store check (a fresh store with the check's quotas). */
export type ExecutionCheck = StoreCheck<ExecutionStore, Partial<ExecutionQuotas>>;

/** Runs `write` and reports whether it was refused with `execution_quota_exceeded`. */
export async function executionQuotaRefused(write: () => unknown): Promise<boolean> {
  try {
    await write();
    return false;
  } catch (error) {
    if (KsadkError.isInstance(error) && error.code === 'execution_quota_exceeded') return true;
    throw error;
  }
}

/** A fresh `started` record of `acct_conformance` (a new id and call id, a minute to run), with overrides. */
export function executionRecord(overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  const at = Date.now();
  return {
    id: `exec_${randomBytes(16).toString('hex')}`,
    callId: `call_${randomBytes(6).toString('hex')}`,
    callIdGiven: true,
    toolName: 'write_note',
    argsDigest: randomBytes(32).toString('hex'),
    accountId: 'acct_conformance',
    userId: 'user_conformance',
    sessionId: 'sess_conformance',
    status: 'started',
    attempt: 1,
    startedAt: at,
    deadlineAt: at + 60_000,
    expiresAt: at + 3_600_000,
    ...overrides,
  };
}

/** The record `begin` created, or a failure when it found another. */
export async function begun(
  store: ExecutionStore,
  record: ExecutionRecord,
): Promise<ExecutionRecord> {
  const outcome = await store.begin(record);
  if (!outcome.created)
    throw new Error(`begin found ${outcome.existing.id} instead of creating ${record.id}`);
  return outcome.record;
}

/** The ids of a listing, for comparing. */
export const idsOf = (items: readonly ExecutionRecord[]): string[] => items.map((item) => item.id);
