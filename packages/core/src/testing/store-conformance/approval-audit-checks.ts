import type { ApprovalAuditEntry } from '../../gateway/approval/audit-entry.js';
import type { ApprovalStore } from '../../gateway/approval/store.js';
import type { ApprovalAuditQuery } from '../../gateway/approval/store-queries.js';
import { type ApprovalCheck, idsOf, pageThrough } from './approval-check-kit.js';
import { auditEntry } from './approval-extras-fixture.js';
import type { Check, CheckContext } from './conformance-run.js';

/** Appends audit records in order; returns them. */
async function appendAll(
  store: ApprovalStore,
  list: readonly Partial<ApprovalAuditEntry>[],
): Promise<ApprovalAuditEntry[]> {
  const made: ApprovalAuditEntry[] = [];
  for (const overrides of list) {
    const entry = auditEntry(overrides);
    await store.appendAudit(entry);
    made.push(entry);
  }
  return made;
}

/** Every audit record a query selects, paged through `limit` at a time. */
const listAll = (
  store: ApprovalStore,
  c: CheckContext,
  query: Omit<ApprovalAuditQuery, 'limit' | 'cursor'>,
  limit = 3,
): Promise<ApprovalAuditEntry[]> =>
  pageThrough(c, `audit ${JSON.stringify(query)}`, limit, (cursor) =>
    store.listAudit({ ...query, limit, ...(cursor === undefined ? {} : { cursor }) }),
  );

/** Ids newest first. */
const newestFirst = (entries: readonly ApprovalAuditEntry[]): string[] => idsOf(entries).reverse();

/** The audit log: append-only, newest first, per account, `since`, retention by count and age. */
export function auditChecks(check: ApprovalCheck): Check[] {
  return [
    check(
      'audit records are listed newest first, paged, one account’s only, admin all',
      {},
      async (store, c) => {
        const full = auditEntry({
          event: 'approved',
          how: 'edited',
          accountId: '__proto__',
          userId: 'user "ü"',
          sessionId: 'séssion 😀',
          toolName: "tool_'x'",
          approvalId: 'appr_1',
          grantId: 'sgr_1',
          by: 'user:"1"',
          reason: "'; DROP TABLE audit; --",
          arguments: JSON.parse(
            '{"path":"日記.md","__proto__":{"polluted":true},"n":[1,2.5,null,true,{}]}',
          ) as Record<string, unknown>,
        });
        await store.appendAudit(full);
        const all = [
          full,
          ...(await appendAll(
            store,
            Array.from({ length: 9 }, (_, index) => ({
              accountId: index % 3 === 0 ? 'acct_other' : '__proto__',
              event: index % 2 === 0 ? ('used' as const) : ('requested' as const),
            })),
          )),
        ];
        c.expect(
          ({} as Record<string, unknown>)['polluted'] === undefined,
          'a __proto__ key in audit arguments polluted Object.prototype',
        );
        const mine = await listAll(store, c, { accountId: '__proto__' });
        c.expectEqual(
          idsOf(mine),
          newestFirst(all.filter((entry) => entry.accountId === '__proto__')),
          'the account’s records, newest first',
        );
        c.expectEqual(mine.at(-1), { ...full }, 'a record keeps every field');
        c.expectEqual(
          idsOf(await listAll(store, c, { accountId: 'acct_other' }, 2)),
          newestFirst(all.filter((entry) => entry.accountId === 'acct_other')),
          'the other account’s records',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, {}, 4)),
          newestFirst(all),
          'admin: every record',
        );
        const none = await store.listAudit({ accountId: '__proto__ ', limit: 5 });
        c.expectEqual([none.items, none.nextCursor], [[], undefined], 'a look-alike account');
      },
    ),

    check('`since` selects the records at or after a time', {}, async (store, c) => {
      const now = Date.now();
      const made = await appendAll(
        store,
        [-3_000, -2_000, -1_000, 0].map((ago) => ({ at: now + ago })),
      );
      c.expectEqual(
        idsOf(await listAll(store, c, { accountId: made[0]!.accountId, since: now - 2_000 }, 1)),
        newestFirst(made.slice(1)),
        'since 2 s ago, paged by one',
      );
      c.expectEqual(
        idsOf(await listAll(store, c, { since: now + 1 })),
        [],
        'since a time after every record',
      );
    }),

    check(
      'retention by count keeps each account’s newest; a flood never removes another account’s',
      { audit: { perAccount: 3, total: 6 } },
      async (store, c) => {
        const theirs = await appendAll(store, [{ accountId: 'acct_b' }, { accountId: 'acct_b' }]);
        const mine = await appendAll(
          store,
          Array.from({ length: 12 }, () => ({})),
        );
        const more = await appendAll(store, [{ accountId: 'acct_b' }]);
        c.expectEqual(
          idsOf(await listAll(store, c, { accountId: mine[0]!.accountId })),
          newestFirst(mine.slice(-3)),
          'the flooding account keeps its newest 3',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, { accountId: 'acct_b' })),
          newestFirst([...theirs, ...more]),
          'the other account keeps all of its records',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, {})),
          newestFirst([...theirs, ...mine.slice(-3), ...more]),
          'admin: what the accounts keep, newest first',
        );
        const last = await appendAll(store, [{ accountId: 'acct_c' }]);
        c.expectEqual(
          idsOf(await listAll(store, c, {})),
          newestFirst([theirs[1]!, ...mine.slice(-3), ...more, ...last]),
          'past the total, the oldest record goes',
        );
      },
    ),

    check(
      'concurrent appends keep each account’s count',
      { audit: { perAccount: 10, total: 15 } },
      async (store, c) => {
        await Promise.all([
          ...Array.from({ length: 20 }, () => store.appendAudit(auditEntry())),
          ...Array.from({ length: 5 }, () =>
            store.appendAudit(auditEntry({ accountId: 'acct_b' })),
          ),
        ]);
        c.expectEqual(
          (await listAll(store, c, { accountId: 'acct_conformance' }, 20)).length,
          10,
          'records kept of the account past its count',
        );
        c.expectEqual(
          (await listAll(store, c, { accountId: 'acct_b' }, 20)).length,
          5,
          'records kept of the other account',
        );
        c.expectEqual((await listAll(store, c, {}, 20)).length, 15, 'records in the log');
      },
    ),

    check(
      'retention by age drops records older than retentionMs',
      { audit: { retentionMs: 60_000 } },
      async (store, c) => {
        const now = Date.now();
        const [old, other] = await appendAll(store, [
          { at: now - 120_000 },
          { at: now - 120_000, accountId: 'acct_b' },
        ]);
        const fresh = await appendAll(store, [{ at: now }, { at: now, accountId: 'acct_b' }]);
        const listed = idsOf(await listAll(store, c, {}));
        c.expect(
          !listed.includes(old!.id) && !listed.includes(other!.id),
          'records past the retention are still listed',
        );
        c.expectEqual(listed, newestFirst(fresh), 'the records within the retention');
      },
    ),
  ];
}
