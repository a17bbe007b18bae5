import { get, post } from '../api.js';
import { h, replace, when } from '../dom.js';
import { signIn } from './calls.js';

interface Credential {
  credentialId: string;
  kind: string;
  scopes: string[];
  userId: string;
  expiresAt?: number;
  refreshable: boolean;
  createdAt: number;
  updatedAt: number;
}

/** The signed-in user's connected accounts (revoke), and the sign-ins calls are waiting for. */
export function renderAccounts(main: HTMLElement): () => void {
  const connected = h(
    'section',
    { 'data-testid': 'credentials' },
    h('p', { class: 'muted' }, 'Loading…'),
  );
  const waiting = h('section', { 'data-testid': 'sign-ins' });
  replace(
    main,
    h(
      'div',
      { class: 'page' },
      h('h2', null, 'Connected accounts'),
      connected,
      h('h2', null, 'Waiting sign-ins'),
      waiting,
    ),
  );

  const load = () => {
    void get<{ personal: boolean; credentials: Credential[] }>('credentials').then(
      ({ personal, credentials }) => {
        if (!personal) {
          replace(
            connected,
            h(
              'p',
              { class: 'empty' },
              'Credentials belong to a user: sign in as one to see theirs.',
            ),
          );
          return;
        }
        if (credentials.length === 0) {
          replace(connected, h('p', { class: 'empty' }, 'No connected accounts.'));
          return;
        }
        replace(
          connected,
          h(
            'table',
            null,
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['Credential', 'Kind', 'Scopes', 'Expires', 'Connected', ''].map((name) =>
                  h('th', null, name),
                ),
              ),
            ),
            h(
              'tbody',
              null,
              credentials.map((credential) =>
                h(
                  'tr',
                  { 'data-testid': 'credential-row' },
                  h('td', null, h('strong', null, credential.credentialId)),
                  h('td', null, credential.kind),
                  h('td', null, credential.scopes.join(' ') || '—'),
                  h('td', null, credential.expiresAt ? when(credential.expiresAt) : 'never'),
                  h('td', null, when(credential.createdAt)),
                  h(
                    'td',
                    null,
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'danger',
                        'data-testid': 'revoke-credential',
                        onclick: () =>
                          void post(
                            `credentials/${encodeURIComponent(credential.credentialId)}/revoke`,
                          ).then(load, (error: unknown) => {
                            replace(connected, h('p', { class: 'message' }, String(error)));
                          }),
                      },
                      'Revoke',
                    ),
                  ),
                ),
              ),
            ),
          ),
        );
      },
      (error: unknown) => replace(connected, h('p', { class: 'empty' }, String(error))),
    );
    void get<{ requests: Record<string, unknown>[] }>('credential-requests').then(
      ({ requests }) =>
        replace(
          waiting,
          requests.length === 0
            ? h('p', { class: 'empty' }, 'No call is waiting for a sign-in.')
            : requests.map((request) => signIn(request)),
        ),
      (error: unknown) => replace(waiting, h('p', { class: 'empty' }, String(error))),
    );
  };
  load();
  return () => undefined;
}
