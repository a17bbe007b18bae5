import { badge, h, replace } from './dom.js';
import { startLive } from './live.js';
import { renderAccounts } from './pages/accounts.js';
import { renderApprovals } from './pages/approvals.js';
import { renderCalls } from './pages/calls.js';
import { renderMcp } from './pages/mcp.js';
import { renderSkills } from './pages/skills.js';

/** A page: draws itself into `main` for the route's parameter; returns how to stop (listeners, timers). */
type Page = (main: HTMLElement, param: string | undefined) => () => void;

const PAGES: Record<string, { title: string; render: Page }> = {
  approvals: { title: 'Approvals', render: renderApprovals },
  calls: { title: 'Calls', render: renderCalls },
  skills: { title: 'Skills', render: renderSkills },
  accounts: { title: 'Connected accounts', render: renderAccounts },
  mcp: { title: 'MCP servers', render: renderMcp },
};

const who = document.querySelector<HTMLMetaElement>('meta[name="ksadk-principal"]')?.content ?? '';
const status = badge('connecting', 'pending');
const nav = h(
  'nav',
  { 'aria-label': 'Pages' },
  Object.entries(PAGES).map(([name, page]) =>
    h('a', { href: `#/${name}`, 'data-page': name }, page.title),
  ),
);
const main = h('main', { id: 'main' });
const app = document.getElementById('app')!;
replace(
  app,
  h(
    'header',
    null,
    h('h1', null, 'KsADK console'),
    nav,
    h('span', { class: 'who', title: 'Signed in as' }, who),
    status,
  ),
  main,
);

let stop: () => void = () => undefined;

/** Draws the page the address names (`#/approvals/appr_…`, `#/calls`, …). */
function route(): void {
  const [, name = 'approvals', ...rest] = location.hash.replace(/^#/, '').split('/');
  const page = PAGES[name] ?? PAGES['approvals']!;
  const param = rest.length > 0 ? decodeURIComponent(rest.join('/')) : undefined;
  stop();
  for (const link of nav.querySelectorAll('a'))
    link.toggleAttribute(
      'aria-current',
      link.dataset['page'] === (PAGES[name] ? name : 'approvals'),
    );
  document.title = `${page.title} · KsADK console`;
  main.replaceChildren();
  stop = page.render(main, param);
}

window.addEventListener('hashchange', route);
startLive((connected) => {
  status.textContent = connected ? 'live' : 'reconnecting';
  status.className = `badge badge-${connected ? 'ok' : 'pending'}`;
});
route();
