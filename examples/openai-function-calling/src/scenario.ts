// The shared scenario of the examples: a workspace with a notes file, a weather MCP server on
// loopback, an in-memory long-term memory, and a local skill whose workflow writes a packing
// list. Copy it freely.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInMemoryMemoryBackend } from '@ksadk/core/memory';
import { loadSkillsSlot } from '@ksadk/core/skills';
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
  // A local skill: SKILL.md plus the workflow entry point execute_skills runs.
  const skillsDir = await mkdtemp(path.join(tmpdir(), 'ksadk-example-skills-'));
  const skill = path.join(skillsDir, 'packing-list');
  await mkdir(path.join(skill, 'scripts'), { recursive: true });
  await writeFile(
    path.join(skill, 'SKILL.md'),
    '---\nname: packing-list\ndescription: Make a packing list for a trip from its destination and weather.\n---\nWrite the list to the output folder.\n',
  );
  await writeFile(
    path.join(skill, 'scripts', 'run-workflow.sh'),
    'printf "# Packing list\\n\\nFor: %s\\n\\n- passport\\n- umbrella\\n" "$KSADK_WORKFLOW_PROMPT" > "$KSADK_SKILL_OUTPUT_DIR/packing-list.md"\necho "packing list written"\n',
  );
  return {
    root,
    skillsDir,
    memory: createInMemoryMemoryBackend(),
    /**
     * The skills slot: `execute_skills` and the manifest of the local skills, on the backend
     * KSADK_SKILL_RUNTIME_BACKEND names (bubblewrap isolates; local_process is the default here).
     */
    skills: () =>
      loadSkillsSlot({
        mode: 'sandbox',
        localDir: skillsDir,
        service: false,
        runtime: process.env['KSADK_SKILL_RUNTIME_BACKEND'] || 'local_process',
      }),
    mcpServers: [{ name: 'weather', url: weather.url, risk_level: 'low' as const }],
    readNotes: () => readFile(path.join(root, 'notes', 'trip.md'), 'utf8'),
    async stop() {
      await weather.close();
      await rm(root, { recursive: true, force: true });
      await rm(skillsDir, { recursive: true, force: true });
    },
  };
}

/** One line for a tool result in the transcript: a skill or code run by its outcome, anything else cut. */
export function describeToolResult(content: string): string {
  try {
    const result = JSON.parse(content) as {
      execution_context?: unknown;
      execution_model?: unknown;
      ok?: unknown;
      output_files?: unknown;
      stdout?: unknown;
    };
    if (String(result.execution_context).startsWith('skill-runtime/'))
      return `skill run: ${result.ok ? 'ok' : 'failed'}, ${([] as unknown[]).concat(result.output_files ?? []).join(', ')}`;
    if (result.execution_model === 'snippet_runner')
      return `code run: ${result.ok ? 'ok' : 'failed'}, ${String(result.stdout ?? '').trim()}`;
  } catch {
    // Not JSON: shown as it is.
  }
  return `tool → ${content.slice(0, 160)}`;
}

/** What every example reports, so it can check itself. */
export interface ExampleReport {
  live: boolean;
  /** Whether the run included a run_code step (isolated sandboxes only). */
  ranCode?: boolean;
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
  const skills = report.toolOrder.indexOf('execute_skills');
  const builtin = report.toolOrder.indexOf('read_workspace_file');
  const mcp = report.toolOrder.indexOf('city_weather');
  if (!(first >= 0 && first < skills && skills < builtin && builtin < mcp))
    problems.push(
      `tools are not in memory → skills → built-ins → MCP order: ${report.toolOrder.join(', ')}`,
    );
  if (report.approvalsAsked < 1 && !report.live)
    problems.push('the gated write was never sent for approval');
  if (!report.live && !report.notes.includes('umbrella'))
    problems.push('the approved edit did not reach the file');
  if (!report.live && !report.transcript.some((line) => line.includes('Oslo: rain')))
    problems.push('the MCP tool was not called');
  if (
    !report.live &&
    report.approvalsAsked >= 2 &&
    !report.transcript.some((line) => line.includes('skill run: ok, output/packing-list.md'))
  )
    problems.push('the approved skill workflow did not run');
  if (
    !report.live &&
    report.ranCode &&
    !report.transcript.some((line) => line.includes('code run: ok, 1 packing line(s)'))
  )
    problems.push('the approved run_code step did not run in the sandbox');
  return problems;
}
