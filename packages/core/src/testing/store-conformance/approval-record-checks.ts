import type { ApprovalRecord } from '../../gateway/approval/store.js';
import {
  type ApprovalCheck,
  approve,
  PAST_SHORT_TTL_MS,
  SHORT_TTL_MS,
} from './approval-check-kit.js';
import { approvalRecord } from './approval-record-fixture.js';
import { type Check, sleep } from './conformance-run.js';

/** Every field of `record` except those a transition may change. */
const fixed = (record: ApprovalRecord | undefined): Record<string, unknown> | undefined => {
  if (!record) return undefined;
  const { status: _status, decidedAt: _decidedAt, reason: _reason, ...rest } = record;
  return { ...rest };
};

/** Records round-trip, `findOpen` finds the newest open one of a binding key, and records expire. */
export function recordChecks(check: ApprovalCheck): Check[] {
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

    check('a record expires with expiresAt', {}, async (store, c) => {
      const createdAt = Date.now();
      const record = approvalRecord({ expiresAt: createdAt + SHORT_TTL_MS });
      await store.create(record);
      // Asked as of the moment it was made: a slow create must not make this check expire it.
      c.expectEqual((await store.findOpen(record.bindingKey, createdAt))?.id, record.id, 'open');
      await sleep(PAST_SHORT_TTL_MS);
      c.expectEqual(await store.findOpen(record.bindingKey, Date.now()), undefined, 'expired');
    }),
  ];
}

/** `transition` is a compare-and-set: one decision and one consume win, also under `concurrency` concurrent attempts. */
export function transitionChecks(check: ApprovalCheck, concurrency: number): Check[] {
  return [
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
  ];
}
