import { KsadkError } from '../errors/ksadk-error.js';
import type { ExecutionRecord } from './execution-record.js';

/** Limits of an execution store. */
export interface ExecutionQuotas {
  /** Records per account. @default 10000 */
  readonly perAccount: number;
  /** Records per session (of one account). @default 2000 */
  readonly perSession: number;
  /** Records in the whole store. @default 100000 */
  readonly total: number;
  /** Characters of results kept inline (`resultJson`) per account. @default 8388608 (8 Mi) */
  readonly resultCharsPerAccount: number;
  /** Characters of results kept inline in the whole store. @default 67108864 (64 Mi) */
  readonly resultCharsTotal: number;
}

/** Options that set an execution store's quotas. */
export interface ExecutionQuotaOptions {
  quotas?: Partial<ExecutionQuotas>;
}

/** The default {@link ExecutionQuotas}. */
export const DEFAULT_EXECUTION_QUOTAS: ExecutionQuotas = Object.freeze({
  perAccount: 10_000,
  perSession: 2_000,
  total: 100_000,
  resultCharsPerAccount: 8 * 1024 * 1024,
  resultCharsTotal: 64 * 1024 * 1024,
});

/**
 * A store's quotas from its options: whole numbers of at least 1, at the defaults when unset.
 *
 * @throws {KsadkError} `invalid_config` for a quota that is not a positive number.
 */
export function resolveExecutionQuotas(
  given: Partial<ExecutionQuotas> | undefined,
  where: string,
): ExecutionQuotas {
  const one = (name: keyof ExecutionQuotas): number => {
    const quota = given?.[name] ?? DEFAULT_EXECUTION_QUOTAS[name];
    if (typeof quota !== 'number' || !(quota >= 1))
      throw new KsadkError(
        'invalid_config',
        `${where}: quotas.${name} must be a number of at least 1.`,
      );
    return Math.floor(quota);
  };
  return {
    perAccount: one('perAccount'),
    perSession: one('perSession'),
    total: one('total'),
    resultCharsPerAccount: one('resultCharsPerAccount'),
    resultCharsTotal: one('resultCharsTotal'),
  };
}

/** The refusal of a record that cannot fit; for stores. */
export const executionQuotaExceeded = (record: ExecutionRecord): KsadkError =>
  new KsadkError(
    'execution_quota_exceeded',
    'This account or session has too many calls running to record another; wait for some to end.',
    { details: { accountId: record.accountId, sessionId: record.sessionId } },
  );
