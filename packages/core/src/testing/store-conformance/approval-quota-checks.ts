import {
  type ApprovalCheck,
  approve,
  createAll,
  PAST_SHORT_TTL_MS,
  present,
  refused,
  SHORT_TTL_MS,
} from './approval-check-kit.js';
import { approvalRecord } from './approval-record-fixture.js';
import { type Check, sleep } from './conformance-run.js';

/** Account quotas: a full account drops its own oldest undecided request, never another account’s, and look-alike ids are different accounts. */
export function accountQuotaChecks(check: ApprovalCheck): Check[] {
  return [
    check(
      'a full account drops its oldest undecided request, never another account’s',
      { perAccount: { maxRecords: 4 } },
      async (store, c) => {
        const mine = await createAll(store, [
          { sessionId: 's1' },
          { sessionId: 's1' },
          { sessionId: 's2' },
          { sessionId: 's2' },
        ]);
        const theirs = await createAll(store, [
          { accountId: 'acct_other', sessionId: 's1' },
          { accountId: 'acct_other', sessionId: 's1' },
          { accountId: 'acct_other', sessionId: 's2' },
          { accountId: 'acct_other', sessionId: 's2' },
        ]);
        await approve(store, mine[0]!);
        const next = approvalRecord({ sessionId: 's3' });
        await store.create(next);
        c.expectEqual(
          await present(store, [...mine, next]),
          [true, false, true, true, true],
          'this account after the overflow',
        );
        c.expectEqual(
          await present(store, theirs),
          [true, true, true, true],
          'the other account is untouched',
        );
      },
    ),

    check(
      'an account full of approved grants refuses; other accounts go on',
      { perAccount: { maxRecords: 2 } },
      async (store, c) => {
        const mine = await createAll(store, [{ sessionId: 's1' }, { sessionId: 's2' }]);
        for (const record of mine) await approve(store, record);
        c.expect(
          await refused(store, approvalRecord({ sessionId: 's3' })),
          'the account over its quota was accepted',
        );
        c.expectEqual(await present(store, mine), [true, true], 'grants after the refusal');
        c.expect(
          !(await refused(store, approvalRecord({ accountId: 'acct_other' }))),
          'another account was refused',
        );
      },
    ),

    check(
      'look-alike account and session ids get quotas of their own',
      { perSession: { maxRecords: 1 }, perAccount: { maxRecords: 1 } },
      async (store, c) => {
        // Distinct accounts whose ids look alike once joined with a separator or escaped.
        const pairs: [string, string][] = [
          ['a:b', 'c'],
          ['a', 'b:c'],
          ['a:b:c', ''],
          ['', 'a:b:c'],
          ['a\u0000b', 'c'],
          ['["a","b"]', 'c'],
          ['__proto__', 'constructor'],
          ['A', 'B'],
        ];
        for (const [accountId, sessionId] of pairs) {
          const record = approvalRecord({ accountId, sessionId });
          // Approved at once: a store that mixed two of these up would have to refuse the next.
          await store.create(record);
          c.expect(
            (await approve(store, record)) !== undefined,
            `${JSON.stringify([accountId, sessionId])} was not approvable`,
          );
        }
      },
    ),
  ];
}

/** Store-wide quotas: a full store refuses new requests (dropping nothing), makes room from expired records, and limits its characters. */
export function storeQuotaChecks(check: ApprovalCheck): Check[] {
  return [
    check(
      'a full store refuses new requests and drops no account’s records',
      { total: { maxRecords: 5 } },
      async (store, c) => {
        const made = await createAll(store, [
          { accountId: 'acct_a' },
          { accountId: 'acct_a', sessionId: 's2' },
          { accountId: 'acct_a', sessionId: 's3' },
          { accountId: 'acct_b' },
          { accountId: 'acct_b', sessionId: 's2' },
        ]);
        c.expect(
          await refused(store, approvalRecord({ accountId: 'acct_c' })),
          'new account accepted',
        );
        c.expect(
          await refused(store, approvalRecord({ accountId: 'acct_a' })),
          'full store accepted',
        );
        c.expectEqual(await present(store, made), [true, true, true, true, true], 'records kept');
      },
    ),

    check(
      'a full store makes room from expired records',
      { total: { maxRecords: 3 } },
      async (store, c) => {
        const short = Date.now() + SHORT_TTL_MS;
        await createAll(store, [
          { accountId: 'acct_a', expiresAt: short },
          { accountId: 'acct_b', expiresAt: short },
          { accountId: 'acct_b', sessionId: 's2', expiresAt: short },
        ]);
        await sleep(PAST_SHORT_TTL_MS);
        c.expect(
          !(await refused(store, approvalRecord({ accountId: 'acct_c' }))),
          'expired records still filled the store',
        );
      },
    ),

    check(
      'the store’s total characters are limited',
      { total: { maxChars: 100 } },
      async (store, c) => {
        await store.create(approvalRecord({ accountId: 'acct_a', argumentsChars: 60 }));
        c.expect(
          await refused(store, approvalRecord({ accountId: 'acct_b', argumentsChars: 60 })),
          'the store over its character quota accepted a request',
        );
        c.expect(
          !(await refused(store, approvalRecord({ accountId: 'acct_b', argumentsChars: 40 }))),
          'a request that fits was refused',
        );
      },
    ),
  ];
}

/** Consumed grants: a tombstone frees its characters and place at once and goes before undecided requests. */
export function tombstoneChecks(check: ApprovalCheck): Check[] {
  return [
    check(
      'tombstones free their characters at once and go before undecided requests',
      { perSession: { maxRecords: 3, maxChars: 100 } },
      async (store, c) => {
        const [used, waiting] = await createAll(store, [
          { argumentsChars: 60 },
          { argumentsChars: 20 },
        ]);
        await approve(store, used!);
        await store.transition(used!.id, 'approved', 'consumed');
        const next = approvalRecord({ argumentsChars: 60 });
        await store.create(next);
        c.expectEqual(
          await present(store, [used!, waiting!, next]),
          [true, true, true],
          'the consumed grant’s characters were freed without dropping anything',
        );
        const last = approvalRecord({ argumentsChars: 10 });
        await store.create(last);
        c.expectEqual(
          await present(store, [used!, waiting!, next, last]),
          [false, true, true, true],
          'the tombstone went first',
        );
      },
    ),

    check(
      'a consumed grant frees its place in the session',
      { perSession: { maxRecords: 2 } },
      async (store, c) => {
        const made = await createAll(store, [{}, {}]);
        for (const record of made) await approve(store, record);
        c.expect(await refused(store, approvalRecord()), 'the session over its quota accepted');
        await store.transition(made[0]!.id, 'approved', 'consumed');
        c.expect(!(await refused(store, approvalRecord())), 'consuming did not free a place');
      },
    ),
  ];
}
