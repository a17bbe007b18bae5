import type { ExecutionRecord } from '../../executions/execution-record.js';
import type { Check } from './conformance-run.js';
import { begun, type ExecutionCheck, executionRecord } from './execution-check-kit.js';

const callOf = (record: ExecutionRecord, now = Date.now()) => ({
  accountId: record.accountId,
  sessionId: record.sessionId,
  callId: record.callId,
  now,
});

/** Records: they round-trip, `begin` is a create-if-absent per call, `complete` a compare-and-set. */
export function executionRecordChecks(check: ExecutionCheck, concurrency: number): Check[] {
  return [
    check('a record round-trips every field, optional ones absent too', {}, async (store, c) => {
      const full = executionRecord({
        accountId: '__proto__',
        userId: `o'brien "✓"`,
        sessionId: 'sess:with:colons',
        callId: 'call "quoted" \\ ünï',
        invocationId: 'inv_1',
        approvalId: 'appr_0123',
        standingGrantId: 'sgr_0123',
        argumentsJson: JSON.stringify({ path: 'notes/ü.md', text: 'a "quoted" \\ line\n' }),
      });
      const bare = executionRecord({ userId: '', sessionId: '', callIdGiven: false });
      for (const record of [full, bare]) {
        const outcome = await store.begin(record);
        c.expectEqual(outcome, { created: true, record }, `begin of ${record.id}`);
      }
      c.expectEqual(await store.get(full.id), full, 'the full record');
      c.expectEqual(await store.get(bare.id), bare, 'the record without optional fields');
      c.expectEqual(await store.findCall(callOf(full)), full, 'findCall of the full record');
      c.expectEqual(await store.get('exec_missing'), undefined, 'an unknown record');
    }),

    check('complete ends a started record once, with its result', {}, async (store, c) => {
      const record = await begun(store, executionRecord({ argumentsJson: '{"text":"kept"}' }));
      const end = {
        status: 'succeeded' as const,
        endedAt: Date.now(),
        resultHandle: 'tool-results://call_1.result.json',
        resultJson: '{"ok":true,"text":"ünï \\"quoted\\""}',
      };
      c.expectEqual(
        await store.complete(record.id, end),
        { ...record, ...end },
        'the ended record',
      );
      c.expectEqual(await store.get(record.id), { ...record, ...end }, 'read back');
      c.expectEqual(
        await store.complete(record.id, { status: 'failed', endedAt: Date.now(), errorType: 'x' }),
        undefined,
        'a second complete',
      );
      c.expectEqual(await store.complete('exec_missing', end), undefined, 'an unknown record');
      const failed = await begun(store, executionRecord());
      const failure = { status: 'failed' as const, endedAt: Date.now(), errorType: 'tool_error' };
      c.expectEqual(await store.complete(failed.id, failure), { ...failed, ...failure }, 'failed');
    }),

    check(
      'begin keeps the first record of a call (another call id, account or session is another call)',
      {},
      async (store, c) => {
        const first = await begun(store, executionRecord());
        const again = executionRecord({ callId: first.callId, argsDigest: first.argsDigest });
        c.expectEqual(await store.begin(again), { created: false, existing: first }, 'a replay');
        const other = executionRecord({ callId: first.callId });
        c.expectEqual(await store.begin(other), { created: false, existing: first }, 'other args');
        for (const overrides of [
          { accountId: 'acct_other' },
          { sessionId: 'sess_other' },
          { callId: `${first.callId}x` },
        ]) {
          const record = executionRecord({
            ...overrides,
            callId: overrides.callId ?? first.callId,
          });
          c.expectEqual(
            (await store.begin(record)).created,
            true,
            `another call (${JSON.stringify(overrides)})`,
          );
        }
        await store.complete(first.id, { status: 'succeeded', endedAt: Date.now() });
        c.expectEqual((await store.begin(again)).created, false, 'a replay of a succeeded call');
        const unknown = await begun(store, executionRecord());
        await store.complete(unknown.id, {
          status: 'unknown',
          endedAt: Date.now(),
          errorType: 'outcome_unknown',
        });
        c.expectEqual(
          (
            await store.begin(
              executionRecord({ callId: unknown.callId, argsDigest: unknown.argsDigest }),
            )
          ).created,
          false,
          'a replay of a call whose outcome is unknown',
        );
      },
    ),

    check(
      'a failed call of the same tool and arguments is replaced by its retry (attempt + 1)',
      {},
      async (store, c) => {
        const first = await begun(store, executionRecord());
        await store.complete(first.id, {
          status: 'failed',
          endedAt: Date.now(),
          errorType: 'tool_error',
        });
        const other = executionRecord({ callId: first.callId });
        const refused = await store.begin(other);
        c.expect(!refused.created, 'a failed call is not replaced by one with other arguments');
        const retry = executionRecord({ callId: first.callId, argsDigest: first.argsDigest });
        const outcome = await store.begin(retry);
        c.expectEqual(outcome, { created: true, record: { ...retry, attempt: 2 } }, 'the retry');
        c.expectEqual(
          await store.findCall(callOf(retry)),
          { ...retry, attempt: 2 },
          'found by call',
        );
      },
    ),

    check(
      `begin is a compare-and-set: one of ${concurrency} concurrent begins of a call wins`,
      {},
      async (store, c) => {
        const template = executionRecord();
        const outcomes = await Promise.all(
          Array.from({ length: concurrency }, () =>
            Promise.resolve(
              store.begin(
                executionRecord({ callId: template.callId, argsDigest: template.argsDigest }),
              ),
            ),
          ),
        );
        const winners = outcomes.filter((outcome) => outcome.created);
        c.expectEqual(winners.length, 1, 'winners');
        const winner = winners[0];
        if (winner?.created)
          c.expect(
            outcomes.every(
              (outcome) => outcome.created || outcome.existing.id === winner.record.id,
            ),
            'the losers see the winner',
          );
      },
    ),

    check(
      `complete is a compare-and-set: one of ${concurrency} concurrent ends wins`,
      {},
      async (store, c) => {
        const record = await begun(store, executionRecord());
        const ends = await Promise.all(
          Array.from({ length: concurrency }, (_, index) =>
            Promise.resolve(
              store.complete(record.id, { status: 'succeeded', endedAt: Date.now() + index }),
            ),
          ),
        );
        c.expectEqual(ends.filter((end) => end !== undefined).length, 1, 'winners');
      },
    ),

    check('an expired record is neither found nor kept from a new call', {}, async (store, c) => {
      const old = await begun(store, executionRecord({ expiresAt: Date.now() + 150 }));
      await store.complete(old.id, { status: 'succeeded', endedAt: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, 250));
      c.expectEqual(await store.findCall(callOf(old)), undefined, 'findCall after expiry');
      const again = executionRecord({ callId: old.callId, argsDigest: old.argsDigest });
      c.expectEqual((await store.begin(again)).created, true, 'a new run after expiry');
    }),
  ];
}
