import type { CredentialRequestRecord } from '../../credentials/credential-store.js';
import { PAST_SHORT_TTL_MS, SHORT_TTL_MS } from './approval-check-kit.js';
import { type Check, sleep } from './conformance-run.js';
import { type CredentialCheck, credentialRequest, quotaRefused } from './credential-check-kit.js';

const pendingOf = (request: CredentialRequestRecord, at = Date.now()) => ({
  accountId: request.accountId,
  userId: request.userId,
  credentialId: request.credentialId,
  callId: request.callId ?? '',
  now: at,
});

/** Requests: they round-trip, the newest pending one of a call is found, and a use wins once. */
export function credentialRequestChecks(check: CredentialCheck, concurrency: number): Check[] {
  return [
    check('a request round-trips every field, optional ones absent too', {}, async (store, c) => {
      const full = credentialRequest({
        accountId: '__proto__',
        userId: `o'brien "✓"`,
        kind: 'oauth2',
        scopes: ['mail.read', 'ünï'],
        state: 'state-123',
        verifier: { keyId: 'k1', data: 'c2VhbGVk' },
        authorizationUrl: 'https://auth.example/authorize?state=state-123',
        oauth: {
          issuer: 'https://auth.example',
          authorizationEndpoint: 'https://auth.example/authorize',
          tokenEndpoint: 'https://auth.example/token',
          clientId: 'client_1',
          redirectUri: 'https://app.example/callback',
          resource: 'https://files.example/mcp',
        },
      });
      const { callId: _, ...bare } = credentialRequest();
      for (const request of [full, bare]) await store.createRequest(request);
      c.expectEqual(await store.getRequest(full.id), full, 'the full request');
      c.expectEqual(await store.getRequest(bare.id), bare, 'the request without optional fields');
      c.expectEqual(await store.getRequest('creq_missing'), undefined, 'an unknown request');
    }),

    check(
      'findPendingRequest finds the newest pending request of exactly one call',
      {},
      async (store, c) => {
        const older = credentialRequest({ createdAt: Date.now() - 10 });
        const newer = credentialRequest({ createdAt: Date.now() - 5 });
        // Each differs from the call of `older` and `newer` in one part only.
        const others = [
          credentialRequest({ accountId: 'acct_other' }),
          credentialRequest({ userId: 'someone_else' }),
          credentialRequest({ credentialId: 'cred_other' }),
          credentialRequest({ callId: 'call_other' }),
        ];
        for (const request of [older, newer, ...others]) await store.createRequest(request);
        const query = pendingOf(newer);
        c.expectEqual(await store.findPendingRequest(query), newer, 'the newest');
        for (const other of others)
          c.expectEqual(
            await store.findPendingRequest(pendingOf(other)),
            other,
            'the request of a call that differs in one part',
          );
        c.expectEqual(
          await store.findPendingRequest({ ...query, callId: 'call_none' }),
          undefined,
          'a call that asked for nothing',
        );
        await store.useRequest(newer.id, Date.now());
        c.expectEqual(await store.findPendingRequest(query), older, 'once the newest is used');
        c.expectEqual(
          await store.findPendingRequest({ ...query, now: older.expiresAt }),
          undefined,
          'past its expiry',
        );
        const { callId: _, ...noCall } = credentialRequest({ credentialId: 'cred_nocall' });
        await store.createRequest(noCall);
        c.expectEqual(
          await store.findPendingRequest({ ...pendingOf(noCall), callId: '' }),
          undefined,
          'a request without a call id matches no call',
        );
      },
    ),

    check(
      `useRequest is a compare-and-set: ${concurrency} concurrent uses, one wins`,
      {},
      async (store, c) => {
        const request = credentialRequest();
        await store.createRequest(request);
        const uses = await Promise.all(
          Array.from({ length: concurrency }, () => store.useRequest(request.id, Date.now())),
        );
        const won = uses.filter((used) => used !== undefined);
        c.expectEqual(won.length, 1, 'uses that won');
        c.expectEqual(won[0]?.id, request.id, 'the winner’s request');
        c.expectEqual(
          (await store.getRequest(request.id))?.status,
          'used',
          'the status afterwards',
        );
        c.expectEqual(await store.useRequest(request.id, Date.now()), undefined, 'a used request');
        c.expectEqual(await store.useRequest('creq_missing', Date.now()), undefined, 'unknown');
        const late = credentialRequest();
        await store.createRequest(late);
        c.expectEqual(await store.useRequest(late.id, late.expiresAt), undefined, 'an expired one');
        c.expectEqual((await store.getRequest(late.id))?.status, 'pending', 'it stays pending');
      },
    ),

    check(
      'a full account drops its used and expired requests first, then refuses',
      { requests: 3 },
      async (store, c) => {
        const short = credentialRequest({ expiresAt: Date.now() + SHORT_TTL_MS });
        const used = credentialRequest();
        const open = credentialRequest();
        const theirs = credentialRequest({ accountId: 'acct_other' });
        for (const request of [short, used, open, theirs]) await store.createRequest(request);
        await store.useRequest(used.id, Date.now());
        await store.useRequest(theirs.id, Date.now());
        await sleep(PAST_SHORT_TTL_MS);
        const next = [credentialRequest(), credentialRequest()];
        for (const request of next)
          c.expect(
            !(await quotaRefused(() => store.createRequest(request))),
            'refused while used and expired requests could go',
          );
        c.expect(
          await quotaRefused(() => store.createRequest(credentialRequest())),
          'an account full of open requests accepted another',
        );
        for (const request of [open, ...next])
          c.expect(
            (await store.getRequest(request.id)) !== undefined,
            'an open request was dropped',
          );
        c.expectEqual(
          (await store.getRequest(theirs.id))?.status,
          'used',
          'the other account’s used request',
        );
        c.expect(
          !(await quotaRefused(() =>
            store.createRequest(credentialRequest({ accountId: 'acct_x' })),
          )),
          'another account was refused',
        );
      },
    ),
  ];
}
