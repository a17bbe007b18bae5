// The shared scenario of the examples: a workspace with a notes file, a weather MCP server on
// loopback, and an in-memory long-term memory. Copy it freely.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInMemoryMemoryBackend } from '@ksadk/core/memory';
import { startMcpTestServer } from '@ksadk/core/testing';

export async function startScenario() {
  const root = await mkdtemp(path.join(tmpdir(), 'ksadk-example-'));
  await mkdir(path.join(root, 'notes'));
  await writeFile(path.join(root, 'notes', 'trip.md'), '# Trip\n- pack: passport\n');
  const weather = await startMcpTestServer({
    tools: [
      {
        name: 'city_weather',
        description: 'Weather forecast for a place.',
        inputSchema: {
          type: 'object',
          properties: { place: { $ref: '#/$defs/Place' } },
          required: ['place'],
          $defs: {
            Place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
        handler: (args) => {
          const city = (args['place'] as { city?: string } | undefined)?.city ?? 'somewhere';
          return { content: [{ type: 'text', text: `${city}: rain, 9°C` }] };
        },
      },
    ],
  });
  return {
    root,
    memory: createInMemoryMemoryBackend(),
    mcpServers: [{ name: 'weather', url: weather.url, risk_level: 'low' as const }],
    readNotes: () => readFile(path.join(root, 'notes', 'trip.md'), 'utf8'),
    async stop() {
      await weather.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** What every example reports, so it can check itself. */
export interface ExampleReport {
  live: boolean;
  toolOrder: string[];
  transcript: string[];
  approvalsAsked: number;
  notes: string;
  answer: string;
}

/** Problems with a run, or an empty list. */
export function checkReport(report: ExampleReport): string[] {
  const problems: string[] = [];
  const first = report.toolOrder.indexOf('load_memory');
  const builtin = report.toolOrder.indexOf('read_workspace_file');
  const mcp = report.toolOrder.indexOf('city_weather');
  if (!(first >= 0 && first < builtin && builtin < mcp))
    problems.push(
      `tools are not in memory → built-ins → MCP order: ${report.toolOrder.join(', ')}`,
    );
  if (report.approvalsAsked < 1 && !report.live)
    problems.push('the gated write was never sent for approval');
  if (!report.live && !report.notes.includes('umbrella'))
    problems.push('the approved edit did not reach the file');
  if (!report.live && !report.transcript.some((line) => line.includes('Oslo: rain')))
    problems.push('the MCP tool was not called');
  return problems;
}
