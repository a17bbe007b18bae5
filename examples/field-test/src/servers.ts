// The MCP servers people install, as the field test runs them: how each is started over stdio
// (fake credentials where one needs an API, so nothing leaves the machine), the calls that work
// offline, and the calls that need a network the test does not give them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpStdioServerOptions } from '@ksadk/core/mcp';
// @ts-expect-error: a repository script, plain JavaScript without types.
import { installPackages } from '../../../scripts/node-releases.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const workspaceModules = path.resolve(here, '..', 'node_modules');

/** What one run of the field test gives the servers: a data folder and a page on 127.0.0.1. */
export interface FieldContext {
  readonly data: string;
  readonly pageUrl: string;
}

/** One call and what its result must hold. */
export interface FieldCall {
  readonly tool: string;
  readonly args: (context: FieldContext) => Record<string, unknown>;
  /** The result (as JSON) must match this. */
  readonly expect: RegExp;
}

/** One server of the field test. */
export interface FieldServer {
  readonly name: string;
  /** Run in CI (installed with the workspace); the rest run with `pnpm test:field`. */
  readonly inCi: boolean;
  /** How to start it. */
  entry(context: FieldContext): McpStdioServerOptions & { name: string };
  /** Calls that work offline, in order. */
  readonly offline: readonly FieldCall[];
  /** Calls that need the network (or an account): they must fail cleanly within the timeout. */
  readonly network: readonly { tool: string; args: Record<string, unknown> }[];
}

/** The per-call timeout the test gives every server. */
export const FIELD_TIMEOUT_MS = 15_000;

/** The bin of an installed package, run with this Node. */
function binOf(modules: string, name: string, bin?: string): string {
  const manifest = JSON.parse(readFileSync(path.join(modules, name, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const entry =
    typeof manifest.bin === 'string'
      ? manifest.bin
      : (manifest.bin?.[bin ?? Object.keys(manifest.bin ?? {})[0] ?? ''] ?? '');
  return path.join(modules, name, entry);
}

/**
 * A server outside the workspace's install (its engines exclude Node 20, or it is heavy), from
 * the npm registry into a folder of its own, once.
 */
function installOnDemand(spec: string): string {
  return installPackages([spec], `field-${spec.replace(/[/@]/g, '-')}`);
}

const node = process.execPath;

export const FIELD_SERVERS: readonly FieldServer[] = [
  {
    name: 'filesystem',
    inCi: true,
    entry: ({ data }) => ({
      name: 'filesystem',
      command: node,
      args: [binOf(workspaceModules, '@modelcontextprotocol/server-filesystem'), data],
      timeoutMs: FIELD_TIMEOUT_MS,
    }),
    offline: [
      {
        tool: 'write_file',
        args: ({ data }) => ({ path: path.join(data, 'note.txt'), content: 'pack an umbrella' }),
        expect: /Successfully wrote/,
      },
      {
        tool: 'read_text_file',
        args: ({ data }) => ({ path: path.join(data, 'note.txt') }),
        expect: /pack an umbrella/,
      },
      {
        tool: 'list_directory',
        args: ({ data }) => ({ path: data }),
        expect: /note\.txt/,
      },
      {
        tool: 'read_text_file',
        args: ({ data }) => ({ path: path.join(data, 'long.txt') }),
        // 20,000 characters reach the model whole (each piece of text once).
        expect: /line 0499 [^"]*"/,
      },
    ],
    network: [],
  },
  {
    name: 'memory',
    inCi: true,
    entry: ({ data }) => ({
      name: 'memory',
      command: node,
      args: [binOf(workspaceModules, '@modelcontextprotocol/server-memory')],
      env: { MEMORY_FILE_PATH: path.join(data, 'memory.jsonl') },
      timeoutMs: FIELD_TIMEOUT_MS,
    }),
    offline: [
      {
        tool: 'create_entities',
        args: () => ({
          entities: [
            { name: 'KsADK', entityType: 'project', observations: ['a guarded tool layer'] },
          ],
        }),
        expect: /KsADK/,
      },
      { tool: 'search_nodes', args: () => ({ query: 'KsADK' }), expect: /guarded tool layer/ },
      { tool: 'read_graph', args: () => ({}), expect: /KsADK/ },
    ],
    network: [],
  },
  {
    name: 'notion',
    inCi: true,
    entry: () => ({
      name: 'notion',
      command: node,
      args: [binOf(workspaceModules, '@notionhq/notion-mcp-server')],
      env: { NOTION_TOKEN: 'ntn_field_test_fake_0123456789abcdef' },
      timeoutMs: FIELD_TIMEOUT_MS,
    }),
    offline: [],
    network: [{ tool: 'API-get-self', args: {} }],
  },
  {
    name: 'github',
    inCi: false,
    entry: () => ({
      name: 'github',
      command: node,
      args: [
        binOf(
          installOnDemand('@modelcontextprotocol/server-github@2025.4.8'),
          '@modelcontextprotocol/server-github',
        ),
      ],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_fieldtestfake0123456789abcdefABCDEF' },
      timeoutMs: FIELD_TIMEOUT_MS,
    }),
    offline: [],
    network: [{ tool: 'search_repositories', args: { query: 'ksadk' } }],
  },
  {
    name: 'firecrawl',
    inCi: false,
    entry: () => ({
      name: 'firecrawl',
      command: node,
      args: [binOf(installOnDemand('firecrawl-mcp@3.26.0'), 'firecrawl-mcp')],
      env: { FIRECRAWL_API_KEY: 'fc-fieldtestfake0123456789abcdef' },
      timeoutMs: FIELD_TIMEOUT_MS,
    }),
    offline: [],
    network: [
      { tool: 'firecrawl_scrape', args: { url: 'https://example.com', formats: ['markdown'] } },
    ],
  },
  {
    name: 'playwright',
    inCi: false,
    entry: ({ data }) => ({
      name: 'playwright',
      command: node,
      args: [
        binOf(installOnDemand('@playwright/mcp@0.0.83'), '@playwright/mcp'),
        '--headless',
        '--isolated',
        '--no-sandbox',
        '--browser',
        'chromium',
        '--executable-path',
        '/usr/bin/chromium',
        '--output-dir',
        path.join(data, 'playwright'),
      ],
      timeoutMs: 60_000,
    }),
    offline: [
      {
        tool: 'browser_navigate',
        args: ({ pageUrl }) => ({ url: pageUrl }),
        expect: /Field test page/,
      },
      { tool: 'browser_snapshot', args: () => ({}), expect: /pack an umbrella/ },
      { tool: 'browser_close', args: () => ({}), expect: /"ok":true/ },
    ],
    network: [],
  },
];
