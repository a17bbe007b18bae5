import type { ExecutionRecord } from '../../executions/execution-record.js';
import type { ExecutionQuery, ExecutionStore } from '../../executions/execution-store.js';
import type { Check } from './conformance-run.js';
import {
  begun,
  type ExecutionCheck,
  executionQuotaRefused,
  executionRecord,
  idsOf,
} from './execution-check-kit.js';

/** Every item of a listing, page after page (bounded). */
async function listAll(
  store: ExecutionStore,
  query: Omit<ExecutionQuery, 'now' | 'limit'>,
  limit = 2,
): Promise<ExecutionRecord[]> {
  const items: ExecutionRecord[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const got = await store.list({
      ...query,
      now: Date.now(),
      limit,
      ...(cursor ? { cursor } : {}),
    });
    items.push(...got.items);
    if (got.nextCursor === undefined) return items;
    cursor = got.nextCursor;
  }
  throw new Error('the listing did not end within 100 pages');
}

/** Listing: newest first, paged, filtered, never another account's; quotas per account and session. */
export function executionListingChecks(check: ExecutionCheck): Check[] {
  return [
    check(
      'list pages newest first and filters by every field, never crossing accounts',
      {},
      async (store, c) => {
        const at = Date.now();
        const made: ExecutionRecord[] = [];
        const add = async (overrides: Partial<ExecutionRecord>) => {
          made.push(
            await begun(store, executionRecord({ startedAt: at + made.length, ...overrides })),
          );
          return made.at(-1) as ExecutionRecord;
        };
        const a1 = await add({});
        const a2 = await add({ userId: '', toolName: 'read_note' });
        const a3 = await add({ sessionId: 'sess_two', userId: 'user_two' });
        const running = await add({ deadlineAt: at + 60_000 });
        const unknown = await add({ deadlineAt: at - 1 });
        const b1 = await add({ accountId: 'acct_other' });
        await store.complete(a1.id, { status: 'succeeded', endedAt: at });
        await store.complete(a2.id, { status: 'failed', endedAt: at, errorType: 'tool_error' });
        await store.complete(a3.id, {
          status: 'unknown',
          endedAt: at,
          errorType: 'outcome_unknown',
        });
        const mine = { accountId: 'acct_conformance' };
        c.expectEqual(
          idsOf(await listAll(store, mine)),
          idsOf([unknown, running, a3, a2, a1]),
          'the account, newest first, in pages of 2',
        );
        c.expectEqual(
          idsOf(await listAll(store, { accountId: 'acct_other' })),
          [b1.id],
          'the other account',
        );
        c.expectEqual(
          idsOf(await listAll(store, { ...mine, userId: 'user_conformance' })),
          idsOf([unknown, running, a2, a1]),
          'a user (and calls without one)',
        );
        c.expectEqual(
          idsOf(await listAll(store, { ...mine, sessionId: 'sess_two' })),
          [a3.id],
          'a session',
        );
        c.expectEqual(
          idsOf(await listAll(store, { ...mine, toolName: 'read_note' })),
          [a2.id],
          'a tool',
        );
        c.expectEqual(
          idsOf(await listAll(store, { ...mine, since: at + 3 })),
          idsOf([unknown, running]),
          'since',
        );
        c.expectEqual(
          idsOf(await listAll(store, { ...mine, outcome: 'succeeded' })),
          [a1.id],
          'succeeded',
        );
        c.expectEqual(
          idsOf(await listAll(store, { ...mine, outcome: 'failed' })),
          [a2.id],
          'failed',
        );
        c.expectEqual(
          idsOf(await listAll(store, { ...mine, outcome: 'running' })),
          [running.id],
          'running',
        );
        c.expectEqual(
          idsOf(await listAll(store, { ...mine, outcome: 'unknown' })),
          idsOf([unknown, a3]),
          'unknown: ended so, or started and past its deadline',
        );
        c.expectEqual(idsOf(await listAll(store, {}, 4)).length, 6, 'every account (admin)');
        const page = await store.list({ ...mine, now: Date.now(), limit: 10_000 });
        c.expect(page.items.length === 5, 'a huge limit is capped, not refused');
      },
    ),

    check(
      'a full session drops its oldest ended records, never a running one',
      { perSession: 3 },
      async (store, c) => {
        const first = await begun(store, executionRecord());
        await store.complete(first.id, { status: 'succeeded', endedAt: Date.now() });
        const runningOnes = [
          await begun(store, executionRecord()),
          await begun(store, executionRecord()),
        ];
        const next = await begun(store, executionRecord());
        c.expectEqual(await store.get(first.id), undefined, 'the oldest ended record went');
        for (const record of [...runningOnes, next])
          c.expect((await store.get(record.id)) !== undefined, `${record.id} is kept`);
        c.expect(
          await executionQuotaRefused(() => store.begin(executionRecord())),
          'a session full of running calls refuses another with execution_quota_exceeded',
        );
        c.expect(
          (await store.begin(executionRecord({ sessionId: 'sess_other' }))).created,
          'another session goes on',
        );
        c.expect(
          (await store.begin(executionRecord({ accountId: 'acct_other' }))).created,
          'another account goes on',
        );
      },
    ),

    check(
      'a full account refuses without touching another account',
      { perAccount: 2 },
      async (store, c) => {
        await begun(store, executionRecord({ sessionId: 's1' }));
        await begun(store, executionRecord({ sessionId: 's2' }));
        const theirs = await begun(store, executionRecord({ accountId: 'acct_other' }));
        c.expect(
          await executionQuotaRefused(() => store.begin(executionRecord({ sessionId: 's3' }))),
          'the full account refuses',
        );
        c.expect((await store.get(theirs.id)) !== undefined, "the other account's record is kept");
      },
    ),
  ];
}
