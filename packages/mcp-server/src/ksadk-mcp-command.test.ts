import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The `ksadk-mcp` command from source, as a real child process, driven by the MCP SDK's own client.
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const cli = path.join(packageDir, 'src/test-fixtures/run-cli.ts');

let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ksadk-mcp-stdio-'));
  await writeFile(path.join(workspace, 'notes.md'), 'status: draft\n');
});
afterAll(() => rm(workspace, { recursive: true, force: true }));

/** A client connected to a fresh `ksadk-mcp` process; `answer` answers each elicitation (none: no capability). */
async function connect(
  args: readonly string[],
  answer?: (message: string) => { action: 'accept' | 'decline'; content?: Record<string, unknown> },
) {
  const client = new Client(
    { name: 'stdio-test', version: '1.0.0' },
    { capabilities: answer ? { elicitation: { form: {} } } : {} },
  );
  const asked: string[] = [];
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const message = String(request.params.message);
      asked.push(message);
      return answer(message);
    });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', '--conditions=@ksadk/source', cli, '--workspace', workspace, ...args],
    cwd: packageDir,
    env: { ...process.env, KSADK_TOOL_APPROVAL_MODE: 'ask' } as Record<string, string>,
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client, transport, asked };
}

const textOf = (result: { content: unknown }) =>
  JSON.parse((result.content as { type: string; text: string }[])[0]!.text) as Record<
    string,
    unknown
  >;

describe('the ksadk-mcp command, with the MCP SDK client', () => {
  it('lists the tools with schemas and hints, reads a file, and edits one only once the user accepts', async () => {
    const { client, asked } = await connect(['--include', 'focused'], () => ({ action: 'accept' }));
    try {
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get('read_workspace_file')?.annotations).toMatchObject({ readOnlyHint: true });
      expect(byName.get('edit_workspace_file')?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
      });
      expect(byName.get('edit_workspace_file')?.inputSchema).toMatchObject({
        type: 'object',
        required: expect.arrayContaining(['path', 'old_text', 'new_text']),
      });

      const read = await client.callTool({
        name: 'read_workspace_file',
        arguments: { path: 'notes.md' },
      });
      expect(read.isError, JSON.stringify(read.content)).toBeUndefined();
      expect(JSON.stringify(read.structuredContent)).toContain('status: draft');
      expect(asked).toHaveLength(0);

      const edit = await client.callTool({
        name: 'edit_workspace_file',
        arguments: { path: 'notes.md', old_text: 'draft', new_text: 'final' },
      });
      expect(textOf(edit as never)).toMatchObject({ ok: true });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('edit_workspace_file');
      expect(asked[0]).toContain('"new_text": "final"');
      expect(await readFile(path.join(workspace, 'notes.md'), 'utf8')).toBe('status: final\n');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a declined elicitation answers approval_rejected and nothing is written', async () => {
    const { client } = await connect(['--include', 'focused'], () => ({
      action: 'decline',
      content: { reason: 'not today' },
    }));
    try {
      await client.callTool({ name: 'read_workspace_file', arguments: { path: 'notes.md' } });
      const before = await readFile(path.join(workspace, 'notes.md'), 'utf8');
      const edit = await client.callTool({
        name: 'edit_workspace_file',
        arguments: { path: 'notes.md', old_text: 'status', new_text: 'hacked' },
      });
      expect(edit.isError).toBe(true);
      expect(textOf(edit as never)).toMatchObject({ error_type: 'approval_rejected' });
      expect(JSON.stringify(textOf(edit as never))).toContain('not today');
      expect(await readFile(path.join(workspace, 'notes.md'), 'utf8')).toBe(before);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('--read-only serves only tools without side effects; the process exits when stdin ends', async () => {
    const { client, transport } = await connect(['--include', 'focused', '--read-only']);
    const pid = transport.pid;
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    expect(tools.map((tool) => tool.name)).not.toContain('edit_workspace_file');
    await client.close();
    const gone = Date.now() + 10_000;
    const alive = () => {
      try {
        process.kill(pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    while (alive() && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive()).toBe(false);
  }, 60_000);

  it('--http serves Streamable HTTP on 127.0.0.1 with the token it prints, and stops on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=@ksadk/source',
        cli,
        '--workspace',
        workspace,
        '--include',
        'focused',
        '--http',
        '0',
      ],
      { cwd: packageDir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const until = Date.now() + 30_000;
      while (!/token \S+/.test(err) && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const url = /MCP at (\S+)/.exec(err)?.[1];
      const token = /token (\S+)/.exec(err)?.[1];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = new Client({ name: 'cli-http', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url!), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const read = await client.callTool({
        name: 'read_workspace_file',
        arguments: { path: 'notes.md' },
      });
      expect(JSON.stringify(read.structuredContent)).toContain('status:');
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 60_000);

  it('refuses unknown options with a usage message and exit code 2', async () => {
    const { main } = await import('./cli.js');
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as never;
    try {
      expect(await main(['--no-such-option'])).toBe(2);
      expect(await main(['--approval-wait', '-5'])).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(written.join('')).toContain('--workspace DIR');
  });
});
