import type { CredentialKey, StoredCredential } from '../../credentials/credential-store.js';
import type { Check } from './conformance-run.js';
import {
  byKey,
  type CredentialCheck,
  quotaRefused,
  storedCredential,
} from './credential-check-kit.js';

const keyOf = (credential: StoredCredential): CredentialKey => ({
  accountId: credential.accountId,
  userId: credential.userId,
  credentialId: credential.credentialId,
});

/** Credentials: every field round-trips, a put replaces, delete forgets, listings stay in their account. */
export function credentialRecordChecks(check: CredentialCheck): Check[] {
  return [
    check('a credential round-trips every field, odd ids included', {}, async (store, c) => {
      const odd = [
        storedCredential({
          kind: 'oauth2',
          scopes: ['read:mail', 'write "drafts"', 'ünïcødé ✓'],
          expiresAt: Date.now() + 3_600_000,
          oauth: {
            issuer: 'https://auth.example.com',
            authorizationEndpoint: 'https://auth.example.com/authorize',
            tokenEndpoint: 'https://auth.example.com/token',
            clientId: 'client "é" ✓',
            redirectUri: 'https://app.example.com/callback',
            resource: 'https://files.example.com/mcp',
          },
        }),
        storedCredential({
          accountId: '__proto__',
          userId: 'constructor',
          credentialId: `it's "quoted" \\ ✓ 🙂`,
        }),
        storedCredential({ accountId: 'acct "x"', userId: '', credentialId: '__proto__' }),
      ];
      for (const credential of odd) await store.putCredential(credential);
      for (const credential of odd)
        c.expectEqual(
          await store.getCredential(keyOf(credential)),
          credential,
          `read back ${JSON.stringify(credential.credentialId)}`,
        );
      c.expectEqual(
        await store.getCredential({ ...keyOf(odd[0]!), credentialId: 'missing' }),
        undefined,
        'an unknown credential',
      );
    }),

    check('a put replaces; delete forgets once, in its account only', {}, async (store, c) => {
      const first = storedCredential({ credentialId: 'mail' });
      const theirs = { ...first, accountId: 'acct_other' };
      await store.putCredential(first);
      await store.putCredential(theirs);
      const second = { ...first, scopes: ['new'], sealed: storedCredential().sealed, updatedAt: 9 };
      await store.putCredential(second);
      c.expectEqual(await store.getCredential(keyOf(first)), second, 'after the replace');
      c.expectEqual(
        (await store.listCredentials({ accountId: first.accountId })).length,
        1,
        'a replaced credential is listed once',
      );
      c.expectEqual(await store.deleteCredential(keyOf(first)), true, 'the first delete');
      c.expectEqual(await store.deleteCredential(keyOf(first)), false, 'the second delete');
      c.expectEqual(await store.getCredential(keyOf(first)), undefined, 'after the delete');
      c.expectEqual(await store.getCredential(keyOf(theirs)), theirs, 'the other account’s');
    }),

    check(
      'listings filter by account and user, never showing another account’s',
      {},
      async (store, c) => {
        const made = [
          storedCredential({ userId: 'u1', credentialId: 'a' }),
          storedCredential({ userId: 'u1', credentialId: 'b' }),
          storedCredential({ userId: 'u2', credentialId: 'a' }),
          storedCredential({ userId: '', credentialId: 'a' }),
          storedCredential({ accountId: 'acct_other', userId: 'u1', credentialId: 'a' }),
          storedCredential({ accountId: 'acct_conformance:u1', userId: '', credentialId: 'a' }),
        ];
        for (const credential of made) await store.putCredential(credential);
        const mine = made.filter((item) => item.accountId === 'acct_conformance');
        c.expectEqual(
          byKey(await store.listCredentials({ accountId: 'acct_conformance' })),
          byKey(mine),
          'the account’s listing',
        );
        c.expectEqual(
          byKey(await store.listCredentials({ accountId: 'acct_conformance', userId: 'u1' })),
          byKey(mine.filter((item) => item.userId === 'u1')),
          'one user’s listing',
        );
        c.expectEqual(
          await store.listCredentials({ accountId: 'acct_conformance', userId: '' }),
          mine.filter((item) => item.userId === ''),
          'the listing of calls without a user',
        );
        c.expectEqual(
          await store.listCredentials({ accountId: 'acct_other' }),
          [made[4]],
          'the other account’s listing',
        );
        c.expectEqual(
          await store.listCredentials({ accountId: 'acct_none' }),
          [],
          'an empty account',
        );
      },
    ),

    check(
      'a full account refuses new credentials, not replacements nor other accounts',
      { credentials: 2 },
      async (store, c) => {
        const mine = [storedCredential(), storedCredential()];
        for (const credential of mine) await store.putCredential(credential);
        const theirs = storedCredential({ accountId: 'acct_other' });
        await store.putCredential(theirs);
        const extra = storedCredential();
        c.expect(
          await quotaRefused(() => store.putCredential(extra)),
          'the third credential was accepted',
        );
        c.expectEqual(await store.getCredential(keyOf(extra)), undefined, 'the refused one');
        const replaced = { ...mine[0]!, updatedAt: mine[0]!.updatedAt + 1 };
        c.expect(
          !(await quotaRefused(() => store.putCredential(replaced))),
          'a replacement was refused',
        );
        c.expect(
          !(await quotaRefused(() =>
            store.putCredential(storedCredential({ accountId: 'acct_other' })),
          )),
          'another account was refused',
        );
        c.expectEqual(await store.getCredential(keyOf(theirs)), theirs, 'the other account’s');
        await store.deleteCredential(keyOf(mine[1]!));
        c.expect(
          !(await quotaRefused(() => store.putCredential(extra))),
          'refused after a delete made room',
        );
      },
    ),
  ];
}
