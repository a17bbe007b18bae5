import { KsadkError } from '../../errors/ksadk-error.js';
import type { ApprovalQuota, ApprovalRecord, ApprovalStore } from '../../gateway/approval/store.js';
import { approvalRecord, type RecordOverrides } from './approval-record-fixture.js';
import { type Check, type CheckContext, runChecks, sleep } from './conformance-run.js';

/** Quotas a conformance check asks its store for (small ones, so they can be reached). */
export interface ApprovalStoreQuotas {
  perSession?: Partial<ApprovalQuota>;
  perAccount?: Partial<ApprovalQuota>;
  total?: Partial<ApprovalQuota>;
}

/**
 * Makes a fresh, empty store with the given quotas (unset ones at the store's defaults). Each
 * check makes its own store and closes it (`close()`, when the store has one) afterwards.
 */
export type ApprovalStoreFactory = (
  quotas: ApprovalStoreQuotas,
) => ApprovalStore | Promise<ApprovalStore>;

/** Options of {@link checkApprovalStore}. */
export interface ApprovalStoreCheckOptions {
  /** Concurrent consumes of one grant (only one may win). @default 50 */
  concurrency?: number;
  /** Bound on each check, in milliseconds: a store that hangs fails instead. @default 30000 */
  checkTimeoutMs?: number;
}

/**
 * How long the short-lived records of the expiry checks live, and how long checks wait. Long
 * enough that a store slowed by a loaded machine (a create taking a few hundred milliseconds)
 * still sees its record open before the wait.
 */
const SHORT_TTL_MS = 1_000;
const PAST_SHORT_TTL_MS = 1_250;

const isQuotaError = (error: unknown): boolean =>
  KsadkError.isInstance(error) && error.code === 'approval_quota_exceeded';

/** Every field of `record` except those a transition may change. */
const fixed = (record: ApprovalRecord | undefined): Record<string, unknown> | undefined => {
  if (!record) return undefined;
  const { status: _status, decidedAt: _decidedAt, reason: _reason, ...rest } = record;
  return { ...rest };
};

function checksFor(makeStore: ApprovalStoreFactory, concurrency: number): Check[] {
  const check = (
    name: string,
    quotas: ApprovalStoreQuotas,
    body: (store: ApprovalStore, c: CheckContext) => Promise<void>,
  ): Check => ({
    name,
    async run(c) {
      const store = await makeStore(quotas);
      try {
        await body(store, c);
      } finally {
        await store.close?.();
      }
    },
  });
  /** Creates records in order; returns them. */
  const createAll = async (
    store: ApprovalStore,
    list: readonly RecordOverrides[],
  ): Promise<ApprovalRecord[]> => {
    const made: ApprovalRecord[] = [];
    for (const overrides of list) {
      const record = approvalRecord(overrides);
      await store.create(record);
      made.push(record);
    }
    return made;
  };
  /** Creates `record` and reports whether it was refused with `approval_quota_exceeded`. */
  const refused = async (store: ApprovalStore, record: ApprovalRecord): Promise<boolean> => {
    try {
      await store.create(record);
      return false;
    } catch (error) {
      if (isQuotaError(error)) return true;
      throw error;
    }
  };
  const present = async (store: ApprovalStore, records: readonly ApprovalRecord[]) =>
    Promise.all(records.map(async (record) => (await store.get(record.id)) !== undefined));
  const approve = (store: ApprovalStore, record: ApprovalRecord) =>
    store.transition(record.id, 'pending', 'approved', { decidedAt: Date.now() });

  return [
    check('create and get round-trip every field', {}, async (store, c) => {
      const record = approvalRecord({
        arguments: JSON.parse(
          '{"path":"日記/😀.md","nested":{"list":[1,2.5,null,true,"x"],"empty":{},"none":[]},"__proto__":{"polluted":true},"quote":"\'; DROP TABLE approvals; --"}',
        ) as Record<string, unknown>,
        accountId: 'acct:with:separators',
        userId: 'user"quoted',
        sessionId: 'séssion/ü\u0000',
        sideEffects: ['write', 'network'],
        riskLevel: 'critical',
      });
      await store.create(record);
      const got = await store.get(record.id);
      c.expectEqual(got, { ...record }, 'get returns the record as created');
      c.expect(
        ({} as Record<string, unknown>)['polluted'] === undefined,
        'a __proto__ key in arguments polluted Object.prototype',
      );
      c.expectEqual(
        await store.get('appr_00000000000000000000000000000000'),
        undefined,
        'unknown id',
      );
    }),

    check('findOpen returns the newest unexpired record of a binding key', {}, async (store, c) => {
      const first = approvalRecord({ bindingKey: 'binding-a' });
      await store.create(first);
      c.expectEqual(
        (await store.findOpen('binding-a', Date.now()))?.id,
        first.id,
        'findOpen finds the record',
      );
      c.expectEqual(await store.findOpen('binding-b', Date.now()), undefined, 'other binding key');
      const second = approvalRecord({ bindingKey: 'binding-a' });
      await store.create(second);
      c.expectEqual(
        (await store.findOpen('binding-a', Date.now()))?.id,
        second.id,
        'the newer record of the same binding key wins',
      );
      c.expectEqual(
        await store.findOpen('binding-a', second.expiresAt),
        undefined,
        'not open at its expiry',
      );
      await approve(store, second);
      c.expectEqual(
        (await store.findOpen('binding-a', Date.now()))?.status,
        'approved',
        'an approved record is still open',
      );
      await store.transition(second.id, 'approved', 'consumed');
      const tombstone = await store.findOpen('binding-a', Date.now());
      c.expectEqual(
        tombstone && [tombstone.id, tombstone.status],
        [second.id, 'consumed'],
        'a consumed record is found as a tombstone until it expires',
      );
    }),

    check('transition is a compare-and-set', {}, async (store, c) => {
      const record = approvalRecord();
      await store.create(record);
      c.expectEqual(
        await store.transition(record.id, 'approved', 'consumed'),
        undefined,
        'from the wrong status',
      );
      c.expectEqual((await store.get(record.id))?.status, 'pending', 'unchanged after a miss');
      const approved = await store.transition(record.id, 'pending', 'approved', {
        decidedAt: 1234,
        reason: 'looks fine',
      });
      c.expectEqual(
        approved && { ...approved },
        { ...record, status: 'approved', decidedAt: 1234, reason: 'looks fine' },
        'the approved record',
      );
      c.expectEqual(
        await store.transition(record.id, 'pending', 'approved'),
        undefined,
        'a second approval',
      );
      c.expectEqual(
        await store.transition(record.id, 'pending', 'rejected'),
        undefined,
        'a rejection after the approval',
      );
      const stored = await store.get(record.id);
      c.expectEqual(stored?.status, 'approved', 'status after the decision');
      c.expectEqual(stored?.decidedAt, 1234, 'decidedAt after the decision');
      c.expectEqual(stored?.reason, 'looks fine', 'reason after the decision');
      const consumed = await store.transition(record.id, 'approved', 'consumed');
      c.expectEqual(consumed?.status, 'consumed', 'consume returns the consumed record');
      c.expectEqual(fixed(consumed), fixed(record), 'consume returns the same request');
      c.expectEqual(
        await store.transition(record.id, 'approved', 'consumed'),
        undefined,
        'a second consume',
      );
      const tombstone = await store.get(record.id);
      c.expectEqual(
        tombstone && [tombstone.status, tombstone.arguments, tombstone.argumentsChars],
        ['consumed', {}, 0],
        'the tombstone keeps no arguments',
      );
      const rejected = approvalRecord();
      await store.create(rejected);
      const outcome = await store.transition(rejected.id, 'pending', 'rejected', {
        decidedAt: 5,
        reason: '',
      });
      c.expectEqual(outcome?.reason, '', 'an empty rejection reason is kept');
      c.expectEqual(
        (await store.transition(rejected.id, 'rejected', 'consumed'))?.status,
        'consumed',
        'a rejection is consumed once',
      );
      c.expectEqual(
        await store.transition('appr_ffffffffffffffffffffffffffffffff', 'pending', 'approved'),
        undefined,
        'unknown id',
      );
    }),

    check(
      `a grant is consumed once under ${concurrency} concurrent consumes`,
      {},
      async (store, c) => {
        const record = approvalRecord();
        await store.create(record);
        await approve(store, record);
        const outcomes = await Promise.all(
          Array.from({ length: concurrency }, () =>
            store.transition(record.id, 'approved', 'consumed'),
          ),
        );
        c.expectEqual(outcomes.filter(Boolean).length, 1, 'successful consumes');
      },
    ),

    check(
      'a pending request is decided once under concurrent approvals and rejections',
      {},
      async (store, c) => {
        const record = approvalRecord();
        await store.create(record);
        const outcomes = await Promise.all(
          Array.from({ length: concurrency }, (_, index) =>
            store.transition(record.id, 'pending', index % 2 === 0 ? 'approved' : 'rejected'),
          ),
        );
        const winners = outcomes.filter(Boolean);
        c.expectEqual(winners.length, 1, 'successful decisions');
        c.expectEqual(
          (await store.get(record.id))?.status,
          winners[0]?.status,
          'the stored status is the winner’s',
        );
      },
    ),

    check('a record expires with expiresAt', {}, async (store, c) => {
      const createdAt = Date.now();
      const record = approvalRecord({ expiresAt: createdAt + SHORT_TTL_MS });
      await store.create(record);
      // Asked as of the moment it was made: a slow create must not make this check expire it.
      c.expectEqual((await store.findOpen(record.bindingKey, createdAt))?.id, record.id, 'open');
      await sleep(PAST_SHORT_TTL_MS);
      c.expectEqual(await store.findOpen(record.bindingKey, Date.now()), undefined, 'expired');
    }),

    check(
      'a full session drops its oldest undecided request',
      { perSession: { maxRecords: 3 } },
      async (store, c) => {
        const [a, b, c1] = await createAll(store, [{}, {}, {}]);
        const other = await createAll(store, [{ sessionId: 'sess_other' }]);
        const d = approvalRecord();
        await store.create(d);
        c.expectEqual(
          await present(store, [a!, b!, c1!, d, ...other]),
          [false, true, true, true, true],
          'records present (oldest first; then the other session)',
        );
      },
    ),

    check(
      'a full session keeps approved grants and drops the oldest undecided one',
      { perSession: { maxRecords: 3 } },
      async (store, c) => {
        const [a, b, d] = await createAll(store, [{}, {}, {}]);
        await approve(store, a!);
        await store.transition(d!.id, 'pending', 'rejected', { reason: 'no' });
        const e = approvalRecord();
        await store.create(e);
        c.expectEqual(
          await present(store, [a!, b!, d!, e]),
          [true, false, true, true],
          'present after the first overflow',
        );
        const f = approvalRecord();
        await store.create(f);
        c.expectEqual(
          await present(store, [a!, d!, e, f]),
          [true, false, true, true],
          'a rejected request is undecided too',
        );
      },
    ),

    check(
      'a session full of approved grants refuses new requests',
      { perSession: { maxRecords: 3 } },
      async (store, c) => {
        const made = await createAll(store, [{}, {}, {}]);
        for (const record of made) await approve(store, record);
        c.expect(await refused(store, approvalRecord()), 'the fourth request was accepted');
        c.expectEqual(
          (await Promise.all(made.map((record) => store.get(record.id)))).map((r) => r?.status),
          ['approved', 'approved', 'approved'],
          'grants after the refusal',
        );
        c.expect(
          !(await refused(store, approvalRecord({ sessionId: 'sess_other' }))),
          'another session of the account was refused',
        );
      },
    ),

    check(
      'expired records go first, before undecided ones',
      { perSession: { maxRecords: 3 } },
      async (store, c) => {
        const [a, b, d] = await createAll(store, [
          {},
          { expiresAt: Date.now() + SHORT_TTL_MS },
          {},
        ]);
        await approve(store, b!);
        await sleep(PAST_SHORT_TTL_MS);
        const e = approvalRecord();
        await store.create(e);
        c.expectEqual(
          await present(store, [a!, d!, e]),
          [true, true, true],
          'undecided requests kept when an expired grant made room',
        );
        const expired = await store.get(b!.id);
        c.expect(
          expired === undefined || expired.expiresAt <= Date.now(),
          'the expired grant came back unexpired',
        );
        c.expect(
          (await store.findOpen(b!.bindingKey, Date.now())) === undefined,
          'the expired grant is still open',
        );
      },
    ),

    check(
      'session quotas count argument characters',
      { perSession: { maxChars: 100 } },
      async (store, c) => {
        const a = approvalRecord({ argumentsChars: 60 });
        await store.create(a);
        const b = approvalRecord({ argumentsChars: 60 });
        await store.create(b);
        c.expectEqual(await present(store, [a, b]), [false, true], 'the older request made room');
        c.expect(
          await refused(store, approvalRecord({ argumentsChars: 101 })),
          'a request larger than the session quota was accepted',
        );
        const small = approvalRecord({ argumentsChars: 40, sessionId: 'sess_small' });
        await store.create(small);
        const big = approvalRecord({ argumentsChars: 60, sessionId: 'sess_small' });
        await approve(store, small);
        await store.create(big);
        c.expectEqual(await present(store, [small, big]), [true, true], 'exactly at the quota');
      },
    ),

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

/**
 * The behaviour every {@link ApprovalStore} must have, checked against a real store: records
 * round-trip, `findOpen` finds the newest unexpired record of a binding key (a consumed one too:
 * it stays as a tombstone without arguments until it expires), `transition` is a compare-and-set
 * (one consume wins among many concurrent ones), records expire, and quotas per session, per account
 * and in total are kept the way the in-memory store keeps them (expired first, then the oldest
 * undecided requests of the same session or account, tombstones before undecided requests;
 * approved grants never; other accounts never). Framework-neutral: call it from any test runner and assert the list is empty.
 *
 * Each check makes its own store through `makeStore(quotas)`; give every store a fresh
 * namespace (key prefix, schema, …) so the checks do not see each other's records.
 *
 * @returns one string per failure (`"<check>: <what went wrong>"`); empty when the store conforms.
 *
 * @example
 * ```ts
 * const failures = await checkApprovalStore((quotas) => createInMemoryApprovalStore(quotas));
 * if (failures.length > 0) throw new Error(failures.join('\n'));
 * ```
 */
export function checkApprovalStore(
  makeStore: ApprovalStoreFactory,
  options: ApprovalStoreCheckOptions = {},
): Promise<string[]> {
  return runChecks(
    checksFor(makeStore, options.concurrency ?? 50),
    options.checkTimeoutMs ?? 30_000,
  );
}
