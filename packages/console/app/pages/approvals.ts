import { ApiError, get, post } from '../api.js';
import { jsonDiff } from '../diff-view.js';
import { badge, type Child, h, replace, when } from '../dom.js';
import { jsonBlock } from '../json-view.js';
import { live } from '../live.js';
import { virtualList } from '../virtual-list.js';

/** An inbox row as the API lists it: the request without its arguments, with a preview. */
interface Row {
  id: string;
  tool_name: string;
  risk_level: string;
  status: string;
  why?: string;
  summary?: string;
  session_id: string;
  user_id: string;
  created_at: string;
  arguments_preview: string;
}

/** One request as the API gives it: everything a human needs to decide. */
interface Item extends Omit<Row, 'arguments_preview'> {
  side_effects: string[];
  arguments: Record<string, unknown>;
  args_digest: string;
  expires_at: string;
  account_id: string;
  tool_call_id?: string;
  decided_at?: string;
  decided_by?: string;
  reason?: string;
  edited_arguments?: Record<string, unknown>;
}

interface Page {
  items: Row[];
  nextCursor: string | null;
}

const ROW_HEIGHT = 64;
const FIRST_PAGE = 100;
const NEXT_PAGE = 500;

/** The approvals inbox: a live, virtualised list of requests and the one selected, to decide. */
export function renderApprovals(main: HTMLElement, selected: string | undefined): () => void {
  const filters = { status: 'pending', session: '', tool: '' };
  let rows: Row[] = [];
  let cursor: string | null = null;
  let loading = false;
  let generation = 0;

  const count = h('span', { class: 'count', 'data-testid': 'approval-count' });
  const list = virtualList<Row>({
    rowHeight: ROW_HEIGHT,
    empty: 'Nothing waiting for a decision.',
    renderRow: (row) =>
      h(
        'a',
        {
          class: `row${row.id === selected ? ' selected' : ''}`,
          href: `#/approvals/${row.id}`,
          'data-testid': 'approval-row',
          'data-id': row.id,
        },
        h(
          'span',
          { class: 'row-title' },
          h('strong', null, row.tool_name),
          ' ',
          badge(row.risk_level),
          ' ',
          row.status !== 'pending' && badge(row.status),
        ),
        h('span', { class: 'row-line' }, row.summary ?? row.arguments_preview),
        h(
          'span',
          { class: 'row-meta' },
          `session ${row.session_id || '—'} · `,
          when(row.created_at),
        ),
      ),
    onNearEnd: () => void loadMore(),
  });
  const detail = h('section', { class: 'detail', 'data-testid': 'approval-detail' });

  const showCount = () => {
    count.textContent = `${rows.length.toLocaleString()}${cursor ? '+' : ''} ${filters.status === 'all' ? 'requests' : filters.status}`;
  };
  const query = (limit: number, after?: string) => ({
    status: filters.status,
    session: filters.session,
    tool: filters.tool,
    limit: String(limit),
    cursor: after,
  });

  async function loadFirst(): Promise<void> {
    const mine = ++generation;
    loading = true;
    try {
      const page = await get<Page>('approvals', query(FIRST_PAGE));
      if (mine !== generation) return;
      rows = page.items;
      cursor = page.nextCursor;
      list.setItems(rows, cursor !== null);
      showCount();
      // When the first rows are on screen, for whoever measures the page (the browser tests).
      requestAnimationFrame(() => performance.mark('ksadk:first-rows'));
    } catch (error) {
      count.textContent = error instanceof Error ? error.message : 'The inbox could not be read.';
    } finally {
      if (mine === generation) loading = false;
    }
  }

  async function loadMore(): Promise<void> {
    if (loading || !cursor) return;
    const mine = generation;
    loading = true;
    try {
      const page = await get<Page>('approvals', query(NEXT_PAGE, cursor));
      if (mine !== generation) return;
      const known = new Set(rows.map((row) => row.id));
      rows = [...rows, ...page.items.filter((row) => !known.has(row.id))];
      cursor = page.nextCursor;
      list.setItems(rows, cursor !== null);
      showCount();
    } finally {
      if (mine === generation) loading = false;
    }
  }

  /** After a change: the newest page again, with the older rows already loaded kept below it. */
  async function refreshTop(): Promise<void> {
    const mine = generation;
    const page = await get<Page>('approvals', query(FIRST_PAGE)).catch(() => undefined);
    if (!page || mine !== generation) return;
    const oldest = page.nextCursor ? page.items.at(-1)?.created_at : undefined;
    const fresh = new Set(page.items.map((row) => row.id));
    const older =
      oldest === undefined
        ? []
        : rows.filter((row) => !fresh.has(row.id) && row.created_at < oldest);
    rows = [...page.items, ...older];
    if (oldest === undefined) cursor = null;
    list.setItems(rows, cursor !== null);
    showCount();
  }

  const toolbar = h(
    'div',
    { class: 'toolbar' },
    h(
      'select',
      {
        'aria-label': 'Status',
        'data-testid': 'status-filter',
        onchange: (event: Event) => {
          filters.status = (event.target as HTMLSelectElement).value;
          void loadFirst();
        },
      },
      ['pending', 'approved', 'rejected', 'consumed', 'expired', 'all'].map((status) =>
        h('option', { value: status }, status),
      ),
    ),
    filterInput('Session', (value) => {
      filters.session = value;
      void loadFirst();
    }),
    filterInput('Tool', (value) => {
      filters.tool = value;
      void loadFirst();
    }),
    count,
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

  /** What the last decision made here said, shown above its request for a few seconds (live updates re-draw the page). */
  let notice: { id: string; text: string; until: number } | undefined;
  /** The status of the request on screen: a live update redraws it only when that changed. */
  let shownStatus: string | undefined;

  async function showDetail(): Promise<void> {
    if (!selected) {
      replace(detail, h('p', { class: 'empty' }, 'Choose a request to see what it would do.'));
      return;
    }
    try {
      const { item } = await get<{ item: Item }>(`approvals/${encodeURIComponent(selected)}`);
      shownStatus = item.status;
      const said = notice && notice.id === item.id && notice.until > Date.now() ? notice.text : '';
      replace(
        detail,
        said && h('p', { class: 'notice', role: 'status', 'data-testid': 'decision-notice' }, said),
        ...detailOf(item, (done) => {
          notice = { id: item.id, text: done, until: Date.now() + 10_000 };
          void Promise.all([refreshTop(), showDetail()]);
        }),
      );
    } catch (error) {
      replace(
        detail,
        h(
          'p',
          { class: 'empty' },
          error instanceof ApiError && error.status === 404 ? 'No such request.' : String(error),
        ),
      );
    }
  }

  /**
   * After a live update: the list, and the request on screen only if it was decided meanwhile —
   * never throwing away an edit or a reason being typed for a request still pending.
   */
  const onChange = () => {
    void refreshTop();
    if (!selected) return;
    void get<{ item: Item }>(`approvals/${encodeURIComponent(selected)}`).then(
      ({ item }) => {
        if (item.status !== shownStatus) void showDetail();
      },
      () => undefined,
    );
  };
  live.addEventListener('approvals', onChange);
  void loadFirst();
  void showDetail();
  return () => {
    generation += 1;
    live.removeEventListener('approvals', onChange);
  };
}

/** A text filter that applies after typing stops. */
function filterInput(label: string, apply: (value: string) => void): HTMLElement {
  let timer: number | undefined;
  return h('input', {
    type: 'search',
    placeholder: label,
    'aria-label': label,
    'data-testid': `${label.toLowerCase()}-filter`,
    oninput: (event: Event) => {
      clearTimeout(timer);
      const value = (event.target as HTMLInputElement).value.trim();
      timer = window.setTimeout(() => apply(value), 250);
    },
  });
}

/** One request: what it is, its arguments, and — while pending — the decisions. */
function detailOf(item: Item, decided: (notice: string) => void): HTMLElement[] {
  const facts = h(
    'dl',
    { class: 'facts' },
    fact('Risk', badge(item.risk_level)),
    fact('Why it asks', item.why),
    fact('What it does', item.summary),
    fact(
      'Side effects',
      item.side_effects.length > 0 ? item.side_effects.join(', ') : 'none declared',
    ),
    fact('Session', item.session_id || '—'),
    fact(
      'Account',
      `${item.account_id || 'default'}${item.user_id ? ` · user ${item.user_id}` : ''}`,
    ),
    fact('Tool call', item.tool_call_id),
    fact('Asked', when(item.created_at)),
    fact('Deadline', when(item.expires_at)),
    item.decided_at &&
      fact('Decided', h('span', null, `${item.decided_by ?? ''} `, when(item.decided_at))),
    fact('Reason', item.reason),
    fact('Digest', h('code', null, item.args_digest)),
  );
  const parts: HTMLElement[] = [
    h('h2', null, item.tool_name, ' ', badge(item.status)),
    facts,
    h('h3', null, 'Arguments'),
    jsonBlock(item.arguments),
  ];
  if (item.edited_arguments) {
    parts.push(h('h3', null, 'Edited to'), jsonDiff(item.arguments, item.edited_arguments));
  }
  if (item.status === 'pending') parts.push(decisionsOf(item, decided));
  return parts;
}

/** A name and its value in a fact list, or nothing when there is no value. */
export const fact = (name: string, value: string | Node | undefined | false): Child =>
  value !== undefined && value !== '' && value !== false
    ? [h('dt', null, name), h('dd', null, value)]
    : false;

/** Approve, approve for the session, edit then approve, reject with a reason. */
function decisionsOf(item: Item, decided: (notice: string) => void): HTMLElement {
  const message = h('p', { class: 'message', role: 'status', 'data-testid': 'decision-message' });
  const always = h('input', { type: 'checkbox', 'data-testid': 'always' });
  const reason = h('input', {
    type: 'text',
    maxlength: 500,
    placeholder: 'Reason (shown to the model)',
    'aria-label': 'Reason',
    'data-testid': 'reject-reason',
  });
  const editor = h('div', { class: 'editor', hidden: true });
  const act = async (action: () => Promise<unknown>, done: string) => {
    message.textContent = '';
    for (const button of buttons) button.disabled = true;
    try {
      await action();
      message.textContent = done;
      decided(done);
    } catch (error) {
      message.textContent = error instanceof Error ? error.message : String(error);
      for (const button of buttons) button.disabled = false;
    }
  };
  const approve = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      'data-testid': 'approve',
      onclick: () =>
        void act(
          () => post(`approvals/${item.id}/approve`, always.checked ? { always: 'session' } : {}),
          'Approved.',
        ),
    },
    'Approve',
  );
  const edit = h(
    'button',
    {
      type: 'button',
      'data-testid': 'edit',
      onclick: () => {
        editor.hidden = !editor.hidden;
        if (!editor.hidden) replace(editor, ...editorOf(item, always, act));
      },
    },
    'Edit, then approve',
  );
  const reject = h(
    'button',
    {
      type: 'button',
      class: 'danger',
      'data-testid': 'reject',
      onclick: () =>
        void act(
          () =>
            post(`approvals/${item.id}/reject`, {
              ...(reason.value.trim() ? { reason: reason.value.trim() } : {}),
              ...(always.checked ? { always: 'session' } : {}),
            }),
          'Rejected.',
        ),
    },
    'Reject',
  );
  const buttons = [approve, edit, reject];
  return h(
    'div',
    { class: 'decisions' },
    h('label', { class: 'always' }, always, ' Always for this session'),
    h('div', { class: 'buttons' }, approve, edit, reason, reject),
    editor,
    message,
  );
}

/** Arguments larger than this (as pretty JSON) are approved or rejected as they are, not edited here. */
const MAX_EDITABLE_CHARS = 1_000_000;

/** The arguments as editable JSON, the diff against the model's, and "approve edited". */
function editorOf(
  item: Item,
  always: HTMLInputElement,
  act: (action: () => Promise<unknown>, done: string) => Promise<void>,
): HTMLElement[] {
  const json = JSON.stringify(item.arguments, null, 2);
  if (json.length > MAX_EDITABLE_CHARS)
    return [
      h(
        'p',
        { class: 'message', 'data-testid': 'too-large-to-edit' },
        `These arguments are too large to edit here (${json.length.toLocaleString()} characters): approve or reject them as they are.`,
      ),
    ];
  const text = h('textarea', {
    rows: 12,
    spellcheck: false,
    'aria-label': 'Edited arguments (JSON)',
    'data-testid': 'edit-args',
  });
  text.value = json;
  const diff = h('div', { class: 'diff-pane', 'data-testid': 'edit-diff' });
  const problem = h('p', { class: 'message' });
  const parsed = (): Record<string, unknown> | undefined => {
    try {
      const value: unknown = JSON.parse(text.value);
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new Error('not an object');
      problem.textContent = '';
      return value as Record<string, unknown>;
    } catch {
      problem.textContent = 'The arguments must be a JSON object.';
      return undefined;
    }
  };
  const showDiff = () => {
    const value = parsed();
    if (value) replace(diff, jsonDiff(item.arguments, value));
  };
  return [
    text,
    h(
      'div',
      { class: 'buttons' },
      h(
        'button',
        { type: 'button', 'data-testid': 'show-diff', onclick: showDiff },
        'Show the change',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'primary',
          'data-testid': 'approve-edited',
          onclick: () => {
            const args = parsed();
            if (!args) return;
            showDiff();
            void act(
              () =>
                post(`approvals/${item.id}/approve`, {
                  args,
                  ...(always.checked ? { always: 'session' } : {}),
                }),
              'Approved with your edit.',
            );
          },
        },
        'Approve edited',
      ),
    ),
    problem,
    diff,
  ];
}
