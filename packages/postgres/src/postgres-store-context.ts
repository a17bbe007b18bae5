import type { Pool } from 'pg';
import { keyOf } from './approval-rows.js';

/** What every part of the PostgreSQL approval store works with. */
export interface PostgresStoreContext {
  readonly pool: Pool;
  /** The schema: its name (for lock names) and its quoted form (for SQL). */
  readonly schema: { readonly name: string; readonly sql: string };
  /** Bound on each operation, in milliseconds. */
  readonly timeoutMs: number;
  /** The store's clock (epoch ms). */
  readonly now: () => number;
  /** Resolves once the schema is migrated (the first call migrates it). */
  readonly ready: () => Promise<void>;
}

/** A page cursor this store made (a row's `seq`), or `undefined` for anything else. */
export const seqCursor = (cursor: string | undefined): string | null | undefined =>
  cursor === undefined ? null : /^\d{1,18}$/.test(cursor) ? cursor : undefined;

/**
 * SQL conditions joined with AND (`TRUE` for none), and their parameters numbered from `$1`. Each
 * condition names its parameter `$?`; conditions are our own text, never a caller's.
 */
export class Conditions {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];

  /** Adds `sql`, whose `$?` stand for `values` in order. */
  add(sql: string, ...values: unknown[]): this {
    let next = 0;
    this.parts.push(
      sql.replace(/\$\?/g, () => {
        this.params.push(values[next]);
        next += 1;
        return `$${this.params.length}`;
      }),
    );
    return this;
  }

  /** A parameter of its own (for LIMIT and the like): its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  toString(): string {
    return this.parts.length === 0 ? 'TRUE' : this.parts.join(' AND ');
  }
}

/**
 * The conditions every listing starts from: the account (when one is named) and the page — rows
 * older than the cursor. `undefined` for a cursor this store did not make: an empty page.
 */
export function pageConditions(
  cursor: string | undefined,
  accountId: string | undefined,
): Conditions | undefined {
  const before = seqCursor(cursor);
  if (before === undefined) return undefined;
  const where = new Conditions();
  if (accountId !== undefined) where.add('account_key = $?', keyOf(accountId));
  if (before !== null) where.add('seq < $?', before);
  return where;
}
