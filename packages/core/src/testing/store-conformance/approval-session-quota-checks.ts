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

/** Session quotas: a full session drops its oldest undecided request (expired records first), never an approved grant, and counts argument characters. */
export function sessionQuotaChecks(check: ApprovalCheck): Check[] {
  return [
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
  ];
}
