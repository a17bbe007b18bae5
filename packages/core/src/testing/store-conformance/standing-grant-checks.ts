import type { StandingGrant } from '../../gateway/approval/standing-grant.js';
import type { ApprovalStore } from '../../gateway/approval/store.js';
import type { StandingGrantQuery } from '../../gateway/approval/store-queries.js';
import { type ApprovalCheck, idsOf, isQuotaError, pageThrough } from './approval-check-kit.js';
import { standingGrant } from './approval-extras-fixture.js';
import type { Check, CheckContext } from './conformance-run.js';

/** Saves grants in order; returns them. */
async function saveAll(
  store: ApprovalStore,
  list: readonly Partial<StandingGrant>[],
): Promise<StandingGrant[]> {
  const saved: StandingGrant[] = [];
  for (const overrides of list) {
    const grant = standingGrant(overrides);
    await store.saveStandingGrant(grant);
    saved.push(grant);
  }
  return saved;
}

/** Saves `grant` and reports whether it was refused with `approval_quota_exceeded`. */
async function refusedGrant(store: ApprovalStore, grant: StandingGrant): Promise<boolean> {
  try {
    await store.saveStandingGrant(grant);
    return false;
  } catch (error) {
    if (isQuotaError(error)) return true;
    throw error;
  }
}

/** Every grant a query selects, paged through `limit` at a time. */
const listAll = (
  store: ApprovalStore,
  c: CheckContext,
  query: Omit<StandingGrantQuery, 'limit' | 'cursor' | 'now'>,
  limit = 2,
): Promise<StandingGrant[]> =>
  pageThrough(c, `grants ${JSON.stringify(query)}`, limit, (cursor) =>
    store.listStandingGrants({
      now: Date.now(),
      ...query,
      limit,
      ...(cursor === undefined ? {} : { cursor }),
    }),
  );

/** Sorted ids: what `findStandingGrants` returns has no order. */
const sortedIds = (grants: readonly StandingGrant[]): string[] => idsOf(grants).sort();

/** Whether each grant is still held. */
const held = async (store: ApprovalStore, grants: readonly StandingGrant[]): Promise<boolean[]> =>
  Promise.all(grants.map(async (grant) => (await store.getStandingGrant(grant.id)) !== undefined));

/** Standing grants: round trip, look-up by account and tool, listing, revocation. */
export function standingGrantChecks(check: ApprovalCheck): Check[] {
  return [
    check(
      'standing grants round-trip and are found for their account and tool only',
      {},
      async (store, c) => {
        const now = Date.now();
        const match = JSON.parse(
          '{"path":{"pathPrefix":"docs/日記"},"__proto__":{"equals":{"polluted":true}},"q":{"equals":"\'; DROP TABLE grants; --"},"ü😀":{"equals":[1,2.5,null,true,{"a":"\\u0000"}]}}',
        ) as StandingGrant['match'];
        const [full, deny, otherTool, otherAccount, expired, revoked] = await saveAll(store, [
          { scope: 'user', sessionId: '', match, reason: 'always "yes" ü' },
          { effect: 'deny', decidedBy: 'admin' },
          { toolName: 'read_note' },
          { accountId: 'acct_other' },
          { expiresAt: now - 1_000 },
          {},
        ]);
        c.expectEqual(
          await store.getStandingGrant(full!.id),
          { ...full! },
          'get returns every field',
        );
        c.expect(
          ({} as Record<string, unknown>)['polluted'] === undefined,
          'a __proto__ key in a match polluted Object.prototype',
        );
        c.expectEqual(
          await store.getStandingGrant('sgr_00000000000000000000000000000000'),
          undefined,
          'unknown id',
        );
        const find = (accountId: string, toolName: string, at = Date.now()) =>
          store.findStandingGrants({ accountId, toolName, now: at }).then(sortedIds);
        const account = full!.accountId;
        c.expectEqual(
          await find(account, 'write_note'),
          sortedIds([full!, deny!, revoked!]),
          'the active grants of the account and tool (not the expired one)',
        );
        c.expectEqual(await find(account, 'read_note'), [otherTool!.id], 'another tool');
        c.expectEqual(
          await find('acct_other', 'write_note'),
          [otherAccount!.id],
          'another account',
        );
        c.expectEqual(await find(account, 'Write_note'), [], 'tool names are exact');
        c.expectEqual(await find(`${account} `, 'write_note'), [], 'account ids are exact');
        c.expectEqual(await find(account, 'write_note', now + 7_200_000), [], 'none after expiry');
        const revokedAt = Date.now();
        c.expectEqual(
          await store.revokeStandingGrant(revoked!.id, revokedAt),
          { ...revoked!, revokedAt },
          'revoke returns the revoked grant',
        );
        c.expectEqual(
          await store.getStandingGrant(revoked!.id),
          { ...revoked!, revokedAt },
          'a revoked grant is still held',
        );
        c.expectEqual(
          await find(account, 'write_note'),
          sortedIds([full!, deny!]),
          'a revoked grant is no longer found',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, { accountId: account })),
          [otherTool!.id, deny!.id, full!.id],
          'the account’s active grants, newest first',
        );
        const everything = idsOf(
          await listAll(store, c, { accountId: account, includeInactive: true }),
        );
        c.expect(
          [revoked!.id, otherTool!.id, deny!.id, full!.id].every((id) => everything.includes(id)),
          `includeInactive lists the revoked grant too (got ${JSON.stringify(everything)})`,
        );
        c.expectEqual(
          everything.filter((id) => id !== expired!.id),
          [revoked!.id, otherTool!.id, deny!.id, full!.id],
          'includeInactive: newest first',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, { accountId: account, toolName: 'read_note' })),
          [otherTool!.id],
          'by tool',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, { accountId: account, sessionId: '' })),
          [full!.id],
          'by session (a user grant has none)',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, { accountId: account, userId: 'nobody' })),
          [],
          'by user',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, { accountId: 'acct_other' })),
          [otherAccount!.id],
          'another account lists only its own',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, {})),
          [otherAccount!.id, otherTool!.id, deny!.id, full!.id],
          'admin: every account’s active grants',
        );
        const again = { ...full!, reason: 'saved again' };
        await store.saveStandingGrant(again);
        c.expectEqual(
          await store.getStandingGrant(full!.id),
          again,
          'a grant saved again is replaced',
        );
        c.expectEqual(
          idsOf(await listAll(store, c, { accountId: account })).filter((id) => id === full!.id),
          [full!.id],
          'and listed once',
        );
      },
    ),

    check('hostile ids and values in standing grants are data', {}, async (store, c) => {
      const values = [
        '__proto__',
        'constructor',
        "'; DROP TABLE x; --",
        'ü 😀 日本',
        'a"b\\c',
        'a:b|c',
      ];
      const grants = await saveAll(
        store,
        values.map((value) => ({
          id: value,
          accountId: value,
          userId: value,
          sessionId: value,
          toolName: value,
          approvalId: value,
          decidedBy: value,
          reason: value,
          match: { [value]: { equals: value } },
        })),
      );
      for (const grant of grants) {
        c.expectEqual(await store.getStandingGrant(grant.id), { ...grant }, `get ${grant.id}`);
        c.expectEqual(
          idsOf(
            await store.findStandingGrants({
              accountId: grant.id,
              toolName: grant.id,
              now: Date.now(),
            }),
          ),
          [grant.id],
          `find ${grant.id}`,
        );
        c.expectEqual(
          idsOf(
            await listAll(store, c, { accountId: grant.id, userId: grant.id, sessionId: grant.id }),
          ),
          [grant.id],
          `list ${grant.id}`,
        );
      }
      c.expect(Object.keys(Object.prototype).length === 0, 'Object.prototype gained properties');
    }),

    check(
      'revoking is a compare-and-set: one of 20 concurrent revokes wins',
      {},
      async (store, c) => {
        const [grant] = await saveAll(store, [{}]);
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            store.revokeStandingGrant(grant!.id, 1_000 + index),
          ),
        );
        const winners = outcomes.filter((outcome) => outcome !== undefined);
        c.expectEqual(winners.length, 1, 'successful revocations');
        c.expectEqual(
          (await store.getStandingGrant(grant!.id))?.revokedAt,
          winners[0]?.revokedAt,
          'the stored revocation is the winner’s',
        );
        c.expectEqual(
          await store.revokeStandingGrant(grant!.id, 5_000),
          undefined,
          'a revocation after the first',
        );
        c.expectEqual(
          await store.revokeStandingGrant('sgr_ffffffffffffffffffffffffffffffff', 5_000),
          undefined,
          'an unknown grant',
        );
      },
    ),

    check(
      'grants are listed newest first, paged without duplicates or gaps',
      {},
      async (store, c) => {
        const all = await saveAll(
          store,
          Array.from({ length: 9 }, (_, index) => ({
            accountId: index % 4 === 3 ? 'acct_other' : 'acct_conformance',
            sessionId: `s${index % 2}`,
          })),
        );
        const mine = all.filter((grant) => grant.accountId === 'acct_conformance');
        c.expectEqual(
          idsOf(await listAll(store, c, { accountId: 'acct_conformance' }, 2)),
          idsOf(mine).reverse(),
          'the account’s grants',
        );
        c.expectEqual(idsOf(await listAll(store, c, {}, 4)), idsOf(all).reverse(), 'admin listing');
      },
    ),
  ];
}

/** Standing-grant quotas: inactive grants go first, active ones never, other accounts never. */
export function standingGrantQuotaChecks(check: ApprovalCheck): Check[] {
  return [
    check(
      'a full account drops its inactive grants first and refuses when all are active',
      { standingGrants: { perAccount: 3 } },
      async (store, c) => {
        const now = Date.now();
        const [kept, expired, revoked] = await saveAll(store, [{}, { expiresAt: now - 1 }, {}]);
        await store.revokeStandingGrant(revoked!.id, now);
        const more = await saveAll(store, [{ toolName: 'tool_a' }, { toolName: 'tool_b' }]);
        c.expectEqual(
          await held(store, [kept!, expired!, revoked!, ...more]),
          [true, false, false, true, true],
          'the inactive grants made room',
        );
        c.expect(
          await refusedGrant(store, standingGrant({ sessionId: 'elsewhere' })),
          'an account full of active grants accepted one more',
        );
        c.expectEqual(
          await held(store, [kept!, ...more]),
          [true, true, true],
          'active grants after the refusal',
        );
        c.expect(
          !(await refusedGrant(store, standingGrant({ accountId: 'acct_other' }))),
          'another account was refused',
        );
      },
    ),

    check(
      'concurrent saves never overshoot the account’s quota',
      { standingGrants: { perAccount: 5 } },
      async (store, c) => {
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            refusedGrant(store, standingGrant({ sessionId: `s${index}` })),
          ),
        );
        c.expectEqual(outcomes.filter((refused) => !refused).length, 5, 'saves that succeeded');
        c.expectEqual(
          (await listAll(store, c, { accountId: 'acct_conformance' }, 10)).length,
          5,
          'grants held',
        );
      },
    ),

    check(
      'one account’s flood of grants leaves another account’s grants and saves alone',
      { standingGrants: { perAccount: 2, total: 6 } },
      async (store, c) => {
        const [theirs, theirsRevoked] = await saveAll(store, [
          { accountId: 'acct_b' },
          { accountId: 'acct_b' },
        ]);
        await store.revokeStandingGrant(theirsRevoked!.id, Date.now());
        const mine = await saveAll(store, [{}, {}]);
        let refusals = 0;
        for (let index = 0; index < 10; index += 1)
          if (await refusedGrant(store, standingGrant({ sessionId: `flood-${index}` })))
            refusals += 1;
        c.expectEqual(refusals, 10, 'the flooding account’s refusals');
        c.expectEqual(
          await held(store, [theirs!, theirsRevoked!]),
          [true, true],
          'the other account’s grants (its revoked one too) after the flood',
        );
        c.expect(
          !(await refusedGrant(store, standingGrant({ accountId: 'acct_b' }))),
          'the other account could not save after the flood',
        );
        c.expectEqual(await held(store, [theirs!, ...mine]), [true, true, true], 'active grants');
        // The store: acct_b 2, this account 2; two more fill it.
        await saveAll(store, [{ accountId: 'acct_c' }, { accountId: 'acct_c' }]);
        c.expect(
          await refusedGrant(store, standingGrant({ accountId: 'acct_d' })),
          'a store full of active grants accepted one more',
        );
        await store.revokeStandingGrant(mine[0]!.id, Date.now());
        c.expect(
          !(await refusedGrant(store, standingGrant({ accountId: 'acct_d' }))),
          'a full store did not drop a revoked grant for room',
        );
        c.expectEqual(await held(store, [mine[0]!]), [false], 'the revoked grant made room');
      },
    ),
  ];
}
