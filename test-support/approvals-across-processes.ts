// For the store packages' tests: the approval decisions of one process seen by another — an edit
// with a standing grant decided in a child process, then used, listed and audited in this one.
// Imports nothing from the packages: the test hands in core's functions, zod and `expect`.

type Result = Record<string, unknown>;
type Gateway = {
  invoke(tool: unknown, args: unknown, options?: Record<string, unknown>): Promise<Result>;
  listApprovalRequests(options?: Record<string, unknown>): Promise<{ items: Result[] }>;
  listStandingGrants(options?: Record<string, unknown>): Promise<{ items: Result[] }>;
  revokeStandingGrant(id: string, options?: Record<string, unknown>): Promise<unknown>;
  auditLog(options?: Record<string, unknown>): Promise<{ items: Result[] }>;
};

/** What the scenario needs from the test. */
export interface AcrossProcesses {
  readonly core: {
    defineTool(definition: Record<string, unknown>): unknown;
    runWithInvocationContext<T>(context: Record<string, string>, fn: () => Promise<T>): Promise<T>;
  };
  readonly z: {
    object(shape: Record<string, unknown>): unknown;
    string(): unknown;
    number(): unknown;
  };
  readonly expect: (value: unknown) => {
    toEqual(expected: unknown): void;
    toMatchObject(expected: unknown): void;
    toBe(expected: unknown): void;
  };
  /** A gateway of this process over the shared store, with the shared secret. */
  readonly gateway: Gateway;
  /**
   * Runs the decision in a child process (its own gateway over the same store and secret), as
   * principal `acct-a` / `alice`; resolves with the grant's token it printed.
   */
  decideInChild(approvalId: string, decision: Record<string, unknown>): Promise<string>;
}

/** The scenario: every step must hold, or `expect` throws. */
export async function approvalsAcrossProcesses(at: AcrossProcesses): Promise<void> {
  const { core, z, expect, gateway } = at;
  const runs: Result[] = [];
  const send = core.defineTool({
    name: 'send_money',
    description: 'Sends money.',
    input: z.object({ to: z.string(), amount: z.number() }),
    policy: { riskLevel: 'medium', sideEffects: ['payment'] },
    execute: (input: Result) => {
      runs.push(input);
      return { ok: true };
    },
  });
  const alice = { accountId: 'acct-a', userId: 'alice', sessionId: 's1' };
  await core.runWithInvocationContext(alice, async () => {
    const first = await gateway.invoke(send, { to: 'attacker', amount: 10_000 }, { callId: 'c1' });
    const request = first['approval_request'] as Result;
    const token = await at.decideInChild(String(request['id']), {
      action: 'edit',
      args: { to: 'landlord', amount: 100 },
      always: 'session',
    });
    // The grant decided over there runs exactly the edited call here, once.
    expect(
      await gateway.invoke(
        send,
        { to: 'attacker', amount: 10_000 },
        { callId: 'c1', approval: token },
      ),
    ).toMatchObject({ ok: true, arguments_edited: true });
    for (const amount of [1, 2, 3])
      expect(await gateway.invoke(send, { to: 'landlord', amount })).toMatchObject({ ok: true });
    expect(runs.map((run) => run['amount'])).toEqual([100, 1, 2, 3]);
    // The decision, made in the other process, is in this process's audit log.
    const audit = (await gateway.auditLog({ limit: 100 })).items;
    const kinds = audit.map((entry) => `${entry['event']}/${entry['how'] ?? ''}`).reverse();
    expect(kinds).toEqual([
      'requested/',
      'approved/edited',
      'used/edited',
      'used/standing_grant',
      'used/standing_grant',
      'used/standing_grant',
    ]);
    expect(audit.find((entry) => entry['event'] === 'approved')).toMatchObject({
      by: 'user:alice',
    });
  });
  // Another session of the same user asks; the inbox shows it to this account only.
  const other = await core.runWithInvocationContext({ ...alice, sessionId: 's2' }, () =>
    gateway.invoke(send, { to: 'landlord', amount: 4 }),
  );
  expect(other['error_type']).toBe('approval_required');
  const inbox = await gateway.listApprovalRequests({ principal: { accountId: 'acct-a' } });
  expect(inbox.items.map((item) => item['session_id'])).toEqual(['s2']);
  expect(
    (await gateway.listApprovalRequests({ principal: { accountId: 'acct-b' } })).items,
  ).toEqual([]);
  // Revoked here, the grant no longer lets the next call of the session through.
  const grants = await gateway.listStandingGrants({ principal: { accountId: 'acct-a' } });
  expect(grants.items.length).toBe(1);
  await gateway.revokeStandingGrant(String(grants.items[0]!['id']), {
    principal: { accountId: 'acct-a' },
  });
  const after = await core.runWithInvocationContext(alice, () =>
    gateway.invoke(send, { to: 'landlord', amount: 5 }),
  );
  expect(after['error_type']).toBe('approval_required');
  expect(runs.length).toBe(4);
}
