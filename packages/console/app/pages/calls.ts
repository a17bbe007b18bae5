import { ApiError, get, outputUrl, post } from '../api.js';
import { badge, h, replace, when } from '../dom.js';
import { jsonBlock } from '../json-view.js';
import { live } from '../live.js';
import { virtualList } from '../virtual-list.js';
import { fact } from './approvals.js';

/** A call as the timeline lists it (an execution record, without its result). */
interface Call {
  id: string;
  callId: string;
  toolName: string;
  accountId: string;
  userId: string;
  sessionId: string;
  approvalId?: string;
  standingGrantId?: string;
  outcome: string;
  attempt: number;
  startedAt: number;
  endedAt?: number;
  errorType?: string;
  argsDigest: string;
  resultHandle?: string;
  result?: Record<string, unknown>;
  /** The arguments the model sent, when the gateway records them. */
  arguments?: Record<string, unknown>;
  /** The first characters of their JSON, when they were too large to keep. */
  argumentsPreview?: string;
}

interface Trail {
  at: number;
  event: string;
  how?: string;
  by?: string;
  reason?: string;
}

const ROW_HEIGHT = 48;

/** The calls timeline (live, filterable by session, tool and outcome) and one call's page. */
export function renderCalls(main: HTMLElement, selected: string | undefined): () => void {
  const filters = { session: '', tool: '', outcome: '' };
  let rows: Call[] = [];
  let cursor: string | null = null;
  let loading = false;
  let generation = 0;
  const list = virtualList<Call>({
    rowHeight: ROW_HEIGHT,
    empty: 'No calls yet.',
    renderRow: (call) =>
      h(
        'a',
        {
          class: `row call-row${call.id === selected ? ' selected' : ''}`,
          href: `#/calls/${call.id}`,
          'data-testid': 'call-row',
          'data-id': call.id,
        },
        h(
          'span',
          { class: 'row-title' },
          h('strong', null, call.toolName),
          ' ',
          badge(call.outcome),
          call.errorType ? [' ', h('code', null, call.errorType)] : false,
          call.approvalId || call.standingGrantId ? [' ', badge('approved', 'ok')] : false,
        ),
        h(
          'span',
          { class: 'row-meta' },
          `session ${call.sessionId || '—'} · ${durationOf(call)} · `,
          when(call.startedAt),
        ),
      ),
    onNearEnd: () => void load(false),
  });
  const detail = h('section', { class: 'detail', 'data-testid': 'call-detail' });

  async function load(first: boolean): Promise<void> {
    if (!first && (loading || !cursor)) return;
    const mine = first ? ++generation : generation;
    loading = true;
    try {
      const page = await get<{ items: Call[]; nextCursor: string | null }>('calls', {
        session: filters.session,
        tool: filters.tool,
        outcome: filters.outcome,
        limit: first ? '100' : '500',
        cursor: first ? undefined : (cursor ?? undefined),
      });
      if (mine !== generation) return;
      rows = first ? page.items : [...rows, ...page.items];
      cursor = page.nextCursor;
      list.setItems(rows, cursor !== null);
    } finally {
      if (mine === generation) loading = false;
    }
  }

  const text = (label: string, key: 'session' | 'tool') => {
    let timer: number | undefined;
    return h('input', {
      type: 'search',
      placeholder: label,
      'aria-label': label,
      'data-testid': `${key}-filter`,
      oninput: (event: Event) => {
        clearTimeout(timer);
        filters[key] = (event.target as HTMLInputElement).value.trim();
        timer = window.setTimeout(() => void load(true), 250);
      },
    });
  };
  const toolbar = h(
    'div',
    { class: 'toolbar' },
    text('Session', 'session'),
    text('Tool', 'tool'),
    h(
      'select',
      {
        'aria-label': 'Outcome',
        onchange: (event: Event) => {
          filters.outcome = (event.target as HTMLSelectElement).value;
          void load(true);
        },
      },
      ['', 'running', 'succeeded', 'failed', 'unknown'].map((outcome) =>
        h('option', { value: outcome }, outcome || 'any outcome'),
      ),
    ),
  );
  replace(
    main,
    h(
      'section',
      { class: 'split' },
      h('div', { class: 'list-pane' }, toolbar, list.element),
      detail,
    ),
  );

  async function showDetail(): Promise<void> {
    if (!selected) {
      replace(detail, h('p', { class: 'empty' }, 'Choose a call to see what it did.'));
      return;
    }
    try {
      const page = await get<{
        call: Call;
        approval: Record<string, unknown> | null;
        trail: Trail[];
      }>(`calls/${encodeURIComponent(selected)}`);
      replace(detail, ...callPage(page.call, page.approval, page.trail));
    } catch (error) {
      replace(
        detail,
        h(
          'p',
          { class: 'empty' },
          error instanceof ApiError && error.status === 404 ? 'No such call.' : String(error),
        ),
      );
    }
  }

  const onChange = () => {
    void load(true);
    if (selected) void showDetail();
  };
  live.addEventListener('calls', onChange);
  void load(true);
  void showDetail();
  return () => {
    generation += 1;
    live.removeEventListener('calls', onChange);
  };
}

const durationOf = (call: Call): string =>
  call.endedAt === undefined ? 'running' : `${Math.max(call.endedAt - call.startedAt, 0)} ms`;

/** One call: its record, the approval trail, its result and the outputs it saved. */
function callPage(
  call: Call,
  approval: Record<string, unknown> | null,
  trail: Trail[],
): HTMLElement[] {
  const parts: HTMLElement[] = [
    h('h2', null, call.toolName, ' ', badge(call.outcome)),
    h(
      'dl',
      { class: 'facts' },
      fact('Started', when(call.startedAt)),
      fact('Took', durationOf(call)),
      fact('Error', call.errorType),
      fact('Session', call.sessionId || '—'),
      fact(
        'Account',
        `${call.accountId || 'default'}${call.userId ? ` · user ${call.userId}` : ''}`,
      ),
      fact('Tool call', call.callId),
      fact('Attempt', String(call.attempt)),
      fact('Digest', h('code', null, call.argsDigest)),
    ),
  ];
  if (call.arguments) parts.push(h('h3', null, 'Arguments'), jsonBlock(call.arguments));
  else if (call.argumentsPreview !== undefined)
    parts.push(
      h('h3', null, 'Arguments (the first characters)'),
      h('pre', { class: 'json', 'data-testid': 'arguments-preview' }, call.argumentsPreview),
    );
  else if (!approval)
    parts.push(
      h(
        'p',
        { class: 'muted', 'data-testid': 'arguments-not-recorded' },
        'Arguments not recorded: the gateway keeps them with executions: { recordArguments: true }.',
      ),
    );
  if (approval || trail.length > 0) {
    parts.push(h('h3', null, 'Approval'));
    if (approval) {
      parts.push(
        h(
          'p',
          null,
          badge(String(approval['status'])),
          ' ',
          h('a', { href: `#/approvals/${String(approval['id'])}` }, 'the request'),
          approval['decided_by'] ? ` decided by ${String(approval['decided_by'])}` : '',
        ),
      );
      if (approval['arguments'] !== undefined && !call.arguments) {
        parts.push(
          h('h3', null, 'Arguments'),
          jsonBlock(approval['edited_arguments'] ?? approval['arguments']),
        );
      }
    }
    parts.push(
      h(
        'ol',
        { class: 'trail', 'data-testid': 'approval-trail' },
        trail.map((entry) =>
          h(
            'li',
            null,
            when(entry.at),
            ' ',
            h('strong', null, entry.event),
            entry.how ? ` (${entry.how})` : '',
            entry.by ? ` by ${entry.by}` : '',
            entry.reason ? ` — ${entry.reason}` : '',
          ),
        ),
      ),
    );
  }
  if (call.result) {
    parts.push(h('h3', null, 'Result'), jsonBlock(call.result));
    const handles = handlesIn(call.result);
    if (handles.length > 0) parts.push(h('h3', null, 'Saved outputs'), outputsOf(call.id, handles));
    const request = call.result['credential_request'] as Record<string, unknown> | undefined;
    if (call.result['type'] === 'credential_required' && request) parts.push(signIn(request));
  } else {
    parts.push(
      h(
        'p',
        { class: 'muted' },
        'No result kept: a call keeps its result when the framework names it (a tool call id).',
      ),
    );
  }
  return parts;
}

/** Every `tool-results://` handle in a result. */
function handlesIn(value: unknown, found = new Set<string>(), depth = 0): string[] {
  if (typeof value === 'string' && value.startsWith('tool-results://')) found.add(value);
  else if (value && typeof value === 'object' && depth < 20)
    for (const child of Object.values(value)) handlesIn(child, found, depth + 1);
  return [...found].slice(0, 50);
}

/** A call's saved outputs: images and sounds shown, text read back, anything else to download. */
function outputsOf(callId: string, handles: string[]): HTMLElement {
  return h(
    'ul',
    { class: 'outputs', 'data-testid': 'outputs' },
    handles.map((handle) => {
      const url = outputUrl(callId, handle);
      const extension = /\.([a-z0-9]+)$/i.exec(handle)?.[1]?.toLowerCase() ?? '';
      if (['png', 'jpg', 'jpeg', 'gif', 'webp'].includes(extension))
        return h('li', null, h('img', { src: url, alt: handle, 'data-testid': 'output-image' }));
      if (['wav', 'mp3', 'ogg'].includes(extension))
        return h(
          'li',
          null,
          h('audio', { src: url, controls: true, 'data-testid': 'output-audio' }),
        );
      if (['txt', 'json', 'md'].includes(extension)) {
        const pre = h('pre', { class: 'json', 'data-testid': 'output-text' }, 'Loading…');
        void fetch(url, { credentials: 'same-origin' })
          .then((response) =>
            response.ok ? response.text() : `Not available (${response.status}).`,
          )
          .then((body) => {
            pre.textContent = body.length > 20_000 ? `${body.slice(0, 20_000)}\n…` : body;
          });
        return h('li', null, h('code', null, handle), pre);
      }
      return h('li', null, h('a', { href: url, download: '' }, handle));
    }),
  );
}

/** A pending sign-in the call asked for: the sign-in link (web addresses only) and the answer. */
export function signIn(request: Record<string, unknown>): HTMLElement {
  const id = String(request['id'] ?? '');
  const link = String(request['authorization_url'] ?? '');
  const safeLink = /^https?:\/\//i.test(link) ? link : undefined;
  const input = h('input', {
    type: 'text',
    placeholder: request['kind'] === 'oauth2' ? 'The address you came back to' : 'API key or token',
    'aria-label': 'Sign-in answer',
    'data-testid': 'sign-in-answer',
  });
  const message = h('p', { class: 'message', role: 'status' });
  return h(
    'div',
    { class: 'sign-in', 'data-testid': 'sign-in' },
    h('h3', null, `Sign in: ${String(request['credential_id'] ?? '')}`),
    request['description'] ? h('p', null, String(request['description'])) : false,
    safeLink
      ? h(
          'p',
          null,
          h(
            'a',
            { href: safeLink, target: '_blank', rel: 'noopener noreferrer' },
            'Open the sign-in page',
          ),
        )
      : false,
    h(
      'div',
      { class: 'buttons' },
      input,
      h(
        'button',
        {
          type: 'button',
          class: 'primary',
          onclick: () => {
            const value = input.value.trim();
            if (!value) return;
            const answer =
              request['kind'] === 'oauth2'
                ? { callbackUrl: value }
                : request['kind'] === 'api_key'
                  ? { apiKey: value }
                  : { token: value };
            post(`credential-requests/${encodeURIComponent(id)}`, answer).then(
              () => {
                message.textContent = 'Connected. Run the call again.';
                input.value = '';
              },
              (error: unknown) => {
                message.textContent = error instanceof Error ? error.message : String(error);
              },
            );
          },
        },
        'Complete sign-in',
      ),
    ),
    message,
  );
}
