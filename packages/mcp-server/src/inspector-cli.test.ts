import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script of the repository, without declarations
import { installNode, installPackages } from '../../../scripts/node-releases.mjs';
import { type ServedCatalogue, serveCatalogue } from './test-fixtures/catalogue.js';

// The MCP Inspector's CLI mode (@modelcontextprotocol/inspector, built on the v2 MCP client) against
// `ksadk-mcp`'s Streamable HTTP. The Inspector needs Node 22.19 or later: it runs on the pinned
// Node 22, installed with it from the npm registry (once per machine) as CI's other Node runs are.
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const run = promisify(execFile);

let catalogue: ServedCatalogue;
let node: string;
let inspector: string;

beforeAll(async () => {
  node = path.join(installNode('22') as string, 'node');
  const modules = installPackages([INSPECTOR], 'inspector-2.12.0') as string;
  inspector = path.join(modules, '@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  // One session for every invocation: each CLI run is a new connection, and the workspace edits
  // only what the session has read.
  catalogue = await serveCatalogue(['inspector'], { userId: 'dev', sessionId: 'inspector' });
}, 300_000);
afterAll(() => catalogue?.close());

/** One `inspector --cli` run against the served URL; its JSON output. */
async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    node,
    [
      inspector,
      '--cli',
      catalogue.served.url,
      '--header',
      `Authorization: Bearer ${catalogue.served.token}`,
      ...args,
    ],
    { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

const answer = (output: Record<string, unknown>) =>
  output['structuredContent'] as Record<string, unknown>;

describe('the MCP Inspector CLI', () => {
  it('lists the tools, reads, edits once the host approves, and runs a local skill', async () => {
    const listed = (await cli('--method', 'tools/list'))['tools'] as { name: string }[];
    expect(listed.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['read_workspace_file', 'edit_workspace_file', 'execute_skills']),
    );
    const call = (tool: string, ...pairs: string[]) =>
      cli('--method', 'tools/call', '--tool-name', tool, '--tool-arg', ...pairs);

    expect(answer(await call('read_workspace_file', 'path=inspector.md'))).toMatchObject({
      ok: true,
      content: '1 | state: todo',
    });
    // The Inspector's CLI has no elicitation: the call waits until the host approves.
    const stop = catalogue.hostApproves();
    try {
      const edited = answer(
        await call('edit_workspace_file', 'path=inspector.md', 'old_text=todo', 'new_text=done'),
      );
      expect(edited).toMatchObject({ ok: true, replacements: 1 });
      const skill = answer(
        await call('execute_skills', 'workflow_prompt=weekly numbers', 'skill_names=report'),
      );
      expect(skill).toMatchObject({ ok: true, executed_skill: 'report' });
    } finally {
      stop();
    }
    expect(await readFile(path.join(catalogue.workspace, 'inspector.md'), 'utf8')).toBe(
      'state: done\n',
    );
  }, 180_000);

  it('without the token the Inspector is refused', async () => {
    const refused = await run(
      node,
      [inspector, '--cli', catalogue.served.url, '--method', 'tools/list'],
      {
        timeout: 60_000,
      },
    ).then(
      () => 'connected',
      (error: { stderr?: string; stdout?: string }) => `${error.stderr ?? ''}${error.stdout ?? ''}`,
    );
    expect(refused).not.toBe('connected');
    expect(refused).toMatch(/401|nauthori|auth_required/);
  }, 120_000);
});
