import { get } from '../api.js';
import { badge, h, replace, when } from '../dom.js';
import { jsonBlock } from '../json-view.js';

interface TargetSchema {
  ok: boolean;
  schema?: unknown;
  strict?: boolean;
  reason?: string;
  problem?: string;
}

interface ServerTool {
  name: string;
  description: string;
  riskLevel: string;
  schemas: { targets: Record<string, TargetSchema>; problems: string[] };
}

interface Server {
  name: string;
  state: string;
  error?: string;
  diagnostics: {
    transport: string | null;
    pid: number | null;
    starts: number;
    crashes: number;
    lastExit: Record<string, unknown> | null;
    restartNotBefore: string | null;
    stderrTail?: string;
  };
  tools: ServerTool[];
  problems: { server: string; tool: string; message: string }[];
}

/** MCP servers: state, diagnostics and stderr tail, tools with the schema each framework gets. */
export function renderMcp(main: HTMLElement): () => void {
  const page = h(
    'div',
    { class: 'page', 'data-testid': 'mcp-servers' },
    h('p', { class: 'muted' }, 'Connecting to the servers…'),
  );
  replace(main, page);
  void get<{ servers: Server[] }>('mcp').then(
    ({ servers }) =>
      replace(
        page,
        servers.length === 0
          ? h('p', { class: 'empty' }, 'No MCP servers configured for this console.')
          : servers.map(serverCard),
      ),
    (error: unknown) => replace(page, h('p', { class: 'empty' }, String(error))),
  );
  return () => undefined;
}

function serverCard(server: Server): HTMLElement {
  const { diagnostics } = server;
  return h(
    'section',
    { class: 'card', 'data-testid': 'mcp-server', 'data-name': server.name },
    h(
      'h2',
      null,
      server.name,
      ' ',
      badge(
        server.state,
        server.state === 'connected' ? 'ok' : server.state === 'restarting' ? 'pending' : 'error',
      ),
    ),
    server.error && h('p', { class: 'message' }, server.error),
    h(
      'p',
      { class: 'muted' },
      `${diagnostics.transport ?? 'not connected'}${diagnostics.pid ? ` · pid ${diagnostics.pid}` : ''} · ${diagnostics.starts} start(s) · ${diagnostics.crashes} crash(es)`,
      diagnostics.restartNotBefore ? [' · restarts ', when(diagnostics.restartNotBefore)] : false,
    ),
    server.problems.length > 0 &&
      h(
        'ul',
        { class: 'problems' },
        server.problems.map((problem) => h('li', null, `${problem.tool}: ${problem.message}`)),
      ),
    h(
      'table',
      { class: 'tools' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Tool', 'Risk', 'OpenAI strict', 'Schemas'].map((name) => h('th', null, name)),
        ),
      ),
      h(
        'tbody',
        null,
        server.tools.map((tool) => {
          const openai = tool.schemas.targets['openai'];
          return h(
            'tr',
            { 'data-testid': 'mcp-tool' },
            h(
              'td',
              null,
              h('strong', null, tool.name),
              h('div', { class: 'muted' }, tool.description),
            ),
            h('td', null, badge(tool.riskLevel)),
            h(
              'td',
              null,
              openai?.ok
                ? openai.strict
                  ? 'yes'
                  : `no — ${openai.reason ?? ''}`
                : `fails — ${openai?.problem ?? ''}`,
            ),
            h(
              'td',
              null,
              Object.entries(tool.schemas.targets).map(([target, schema]) =>
                h(
                  'details',
                  null,
                  h('summary', null, `${target}${schema.ok ? '' : ' (fails)'}`),
                  schema.ok ? jsonBlock(schema.schema, 4000) : h('p', null, schema.problem ?? ''),
                ),
              ),
            ),
          );
        }),
      ),
    ),
    diagnostics.stderrTail !== undefined &&
      h(
        'details',
        { open: server.state !== 'connected' },
        h('summary', null, 'stderr (last lines)'),
        h('pre', { class: 'stderr' }, diagnostics.stderrTail.slice(-8000) || '(empty)'),
      ),
  );
}
