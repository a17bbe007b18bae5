import type { ApprovalRecord, ApprovalStore } from '../../gateway/approval/store.js';
import type { ApprovalRequestQuery } from '../../gateway/approval/store-queries.js';
import {
  type ApprovalCheck,
  approve,
  createAll,
  idsOf,
  pageThrough,
} from './approval-check-kit.js';
import { approvalRecord } from './approval-record-fixture.js';
import type { Check, CheckContext } from './conformance-run.js';

/** Every request a query selects, paged through `limit` at a time. */
const listAll = (
  store: ApprovalStore,
  c: CheckContext,
  what: string,
  query: Omit<ApprovalRequestQuery, 'limit' | 'cursor' | 'now'> & { now?: number },
  limit = 100,
): Promise<ApprovalRecord[]> =>
  pageThrough(c, what, limit, (cursor) =>
    store.listRequests({
      now: Date.now(),
      ...query,
      limit,
      ...(cursor === undefined ? {} : { cursor }),
    }),
  );

/** Ids newest first: the reverse of the order they were made in. */
const newestFirst = (records: readonly ApprovalRecord[]): string[] => idsOf(records).reverse();

/** The inbox listing: newest first, paged without gaps, one account's only, admin all. */
export function inboxListingChecks(check: ApprovalCheck): Check[] {
  return [
    check(
      'requests are listed newest first, paged without duplicates or gaps',
      {},
      async (store, c) => {
        const mine: ApprovalRecord[] = [];
        const theirs: ApprovalRecord[] = [];
        const all: ApprovalRecord[] = [];
        for (let index = 0; index < 10; index += 1) {
          const other = index % 3 === 2;
          const [made] = await createAll(store, [
            other
              ? { accountId: 'acct_other', sessionId: `s${index}` }
              : { sessionId: `s${index % 4}` },
          ]);
          (other ? theirs : mine).push(made!);
          all.push(made!);
        }
        await approve(store, mine[1]!);
        const accountId = mine[0]!.accountId;
        const listed = await listAll(store, c, 'account listing', { accountId }, 2);
        c.expectEqual(idsOf(listed), newestFirst(mine), 'the account’s requests, newest first');
        c.expectEqual(
          idsOf(await listAll(store, c, 'other account', { accountId: 'acct_other' }, 3)),
          newestFirst(theirs),
          'the other account’s requests',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, 'admin listing', {}, 3)),
          newestFirst(all),
          'without an account: every account’s requests, newest first',
        );
        c.expectEqual(
          listed.find((record) => record.id === mine[0]!.id),
          { ...mine[0]! },
          'a listed request has every field',
        );
        const none = await store.listRequests({
          accountId: 'acct_nobody',
          now: Date.now(),
          limit: 10,
        });
        c.expectEqual(
          [none.items, none.nextCursor],
          [[], undefined],
          'an account without requests: an empty last page',
        );
        const one = await store.listRequests({ accountId, now: Date.now(), limit: 0 });
        c.expect(one.items.length <= 1, 'a limit of 0 is taken as 1');
        c.expect(one.nextCursor !== undefined, 'a page of 1 out of 7 says more follow');
      },
    ),

    check('paging is stable while new requests arrive', {}, async (store, c) => {
      const made = await createAll(
        store,
        Array.from({ length: 6 }, (_, index) => ({ sessionId: `s${index % 2}` })),
      );
      const accountId = made[0]!.accountId;
      const seen: string[] = [];
      const first = await store.listRequests({ accountId, now: Date.now(), limit: 2 });
      seen.push(...idsOf(first.items));
      // Arrives between pages: newer than every page still to come, so on none of them.
      const late = await createAll(store, [{}, { sessionId: 's9' }]);
      let cursor = first.nextCursor;
      for (let page = 0; cursor !== undefined && page < 20; page += 1) {
        const next = await store.listRequests({ accountId, now: Date.now(), limit: 2, cursor });
        seen.push(...idsOf(next.items));
        cursor = next.nextCursor;
      }
      c.expectEqual(seen, newestFirst(made), 'the pages after a create');
      const fresh = await listAll(store, c, 'listing from the start', { accountId }, 3);
      c.expectEqual(idsOf(fresh), newestFirst([...made, ...late]), 'a new listing sees them');
    }),
  ];
}

/** Status filters (`expired`: pending past its deadline) and the session, tool and user filters. */
export function inboxFilterChecks(check: ApprovalCheck): Check[] {
  return [
    check('status filters, with `expired` past decideBy or expiresAt', {}, async (store, c) => {
      const now = Date.now();
      const [late, open, soon, granted, lateGrant, refused, used] = await createAll(store, [
        { decideBy: now - 1_000, sessionId: 's1' },
        { expiresAt: now + 60_000, sessionId: 's1' },
        { decideBy: now + 30_000, expiresAt: now + 60_000, sessionId: 's2' },
        { sessionId: 's2' },
        { decideBy: now - 1_000, sessionId: 's3' },
        { sessionId: 's3' },
        { sessionId: 's4' },
      ]);
      await approve(store, granted!);
      await approve(store, lateGrant!);
      await store.transition(refused!.id, 'pending', 'rejected', { decidedAt: now });
      await approve(store, used!);
      await store.transition(used!.id, 'approved', 'consumed');
      const accountId = late!.accountId;
      const listed = async (status: ApprovalRequestQuery['status'], at = now) =>
        idsOf(await listAll(store, c, `status ${status}`, { accountId, status, now: at }, 2));
      c.expectEqual(await listed('pending'), [soon!.id, open!.id], 'pending now');
      c.expectEqual(await listed('expired'), [late!.id], 'expired now (decideBy passed)');
      c.expectEqual(await listed('pending', now + 45_000), [open!.id], 'pending in 45 s');
      c.expectEqual(
        await listed('expired', now + 45_000),
        [soon!.id, late!.id],
        'expired in 45 s (decideBy passed)',
      );
      c.expectEqual(
        await listed('expired', now + 61_000),
        [soon!.id, open!.id, late!.id],
        'expired in 61 s (expiresAt passed, no decideBy)',
      );
      c.expectEqual(
        await listed('approved'),
        [lateGrant!.id, granted!.id],
        'approved (an approved request is never expired, whatever its decideBy)',
      );
      c.expectEqual(await listed('rejected'), [refused!.id], 'rejected');
      c.expectEqual(await listed('consumed'), [used!.id], 'consumed');
      c.expectEqual((await listed(undefined)).length, 7, 'every status');
      c.expectEqual(
        idsOf(
          await listAll(store, c, 'other account', { accountId: 'acct_other', status: 'pending' }),
        ),
        [],
        'another account has none of them',
      );
    }),

    check(
      'filters by session, tool and user; a user also sees requests without a user',
      {},
      async (store, c) => {
        const a = '__proto__';
        const b = 'acct "b" ü';
        const session = 'séssion "1" 😀';
        const made = await createAll(store, [
          { accountId: a, sessionId: session, toolName: 'tool_x', userId: 'u1' },
          { accountId: a, sessionId: session, toolName: 'tool_y', userId: 'u2' },
          { accountId: a, sessionId: 's2', toolName: 'tool_x', userId: '' },
          { accountId: a, sessionId: 's2', toolName: 'tool_y', userId: 'u1' },
          { accountId: b, sessionId: session, toolName: 'tool_x', userId: 'u1' },
          { accountId: b, sessionId: 's2', toolName: "tool_'y'", userId: '' },
        ]);
        const [x1, y2, xNone, y1, bx1, bNone] = made;
        const ids = async (query: Omit<ApprovalRequestQuery, 'limit' | 'now'>) =>
          idsOf(await listAll(store, c, JSON.stringify(query), query, 2));
        c.expectEqual(await ids({ accountId: a, sessionId: session }), [y2!.id, x1!.id], 'session');
        c.expectEqual(await ids({ accountId: a, toolName: 'tool_x' }), [xNone!.id, x1!.id], 'tool');
        c.expectEqual(
          await ids({ accountId: a, userId: 'u1' }),
          [y1!.id, xNone!.id, x1!.id],
          'user u1, and the request without a user',
        );
        c.expectEqual(await ids({ accountId: a, userId: 'u2' }), [xNone!.id, y2!.id], 'user u2');
        c.expectEqual(
          await ids({ accountId: a, userId: 'u1', toolName: 'tool_y', sessionId: 's2' }),
          [y1!.id],
          'every filter at once',
        );
        c.expectEqual(await ids({ accountId: a, toolName: 'Tool_x' }), [], 'tool names are exact');
        c.expectEqual(await ids({ accountId: a, sessionId: 'S2' }), [], 'session ids are exact');
        c.expectEqual(
          await ids({ accountId: b }),
          [bNone!.id, bx1!.id],
          'the other account: only its own',
        );
        c.expectEqual(await ids({ accountId: '__proto__ ' }), [], 'a look-alike account');
        c.expectEqual(
          await ids({ sessionId: session }),
          [bx1!.id, y2!.id, x1!.id],
          'admin: a session id in every account',
        );
        c.expectEqual(await ids({ toolName: "tool_'y'" }), [bNone!.id], 'admin: a tool name');
        c.expectEqual(
          await ids({ userId: 'u2' }),
          [bNone!.id, xNone!.id, y2!.id],
          'admin: a user, and requests without a user',
        );
      },
    ),
  ];
}

/** The request fields of the inbox and the decision's patch round-trip; a consume drops `edited`. */
export function inboxRecordChecks(check: ApprovalCheck): Check[] {
  return [
    check('inbox fields and the decision patch round-trip', {}, async (store, c) => {
      const now = Date.now();
      const record = approvalRecord({
        decideBy: now + 30_000,
        onExpiry: 'approve',
        why: 'Writes to "notes/" — ü 😀',
        summary: "write 'hello' to notes.md",
        callId: 'call_"1"\u0000',
        standingAllowed: true,
      });
      await store.create(record);
      c.expectEqual(await store.get(record.id), { ...record }, 'get after create');
      const edited = {
        arguments: JSON.parse(
          '{"path":"日記.md","__proto__":{"polluted":true},"text":"\'; DROP TABLE x; --"}',
        ) as Record<string, unknown>,
        digest: 'f'.repeat(64),
      };
      const approved = await store.transition(record.id, 'pending', 'approved', {
        decidedAt: now,
        reason: 'edited "path"',
        decidedBy: 'user:ü"1',
        edited,
      });
      const decided = {
        ...record,
        status: 'approved',
        decidedAt: now,
        reason: 'edited "path"',
        decidedBy: 'user:ü"1',
        edited,
      };
      c.expectEqual(approved && { ...approved }, decided, 'the approved record');
      c.expectEqual(await store.get(record.id), decided, 'get after the decision');
      c.expect(
        ({} as Record<string, unknown>)['polluted'] === undefined,
        'a __proto__ key in edited arguments polluted Object.prototype',
      );
      const listed = await store.listRequests({
        accountId: record.accountId,
        status: 'approved',
        now,
        limit: 5,
      });
      c.expectEqual(
        listed.items.map((item) => ({ ...item })),
        [decided],
        'listed after the decision',
      );
      const consumed = await store.transition(record.id, 'approved', 'consumed');
      c.expectEqual(
        consumed && [consumed.status, consumed.edited, consumed.arguments],
        ['consumed', edited, record.arguments],
        'the consume returns the edited arguments the call runs with',
      );
      const tombstone = await store.get(record.id);
      c.expectEqual(
        tombstone && [tombstone.arguments, tombstone.argumentsChars, 'edited' in tombstone],
        [{}, 0, false],
        'the tombstone keeps neither the arguments nor the edited ones',
      );
      c.expectEqual(
        tombstone && [tombstone.decidedBy, tombstone.decideBy, tombstone.why, tombstone.callId],
        ['user:ü"1', record.decideBy, record.why, record.callId],
        'the tombstone keeps who decided and the request’s fields',
      );
      const rejected = approvalRecord({ standingAllowed: false });
      await store.create(rejected);
      await store.transition(rejected.id, 'pending', 'rejected', { decidedBy: 'admin' });
      c.expectEqual(
        await store.get(rejected.id),
        { ...rejected, status: 'rejected', decidedBy: 'admin' },
        'a rejection with only decidedBy',
      );
      await store.transition(rejected.id, 'rejected', 'consumed');
      c.expectEqual((await store.get(rejected.id))?.decidedBy, 'admin', 'kept by the consume');
    }),
  ];
}
