import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { bundledRuntimeAgentPath } from './runtime-agent-path.js';
import { readWorkflowReport, type WorkflowReport } from './runtime-result.js';
import type { RunOutcome, WorkflowRun } from './workflow-run.js';

const MAX_RESULT_BYTES = 4 * 1024 * 1024;
const MAX_UPLOAD_FILES = 5000;
const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** Every regular file of a skill (no links), relative, capped. */
async function skillFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
      if (out.length >= MAX_UPLOAD_FILES) return;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) out.push(child);
    }
  };
  await walk('');
  return out;
}

/** e2b: the agent and the skills uploaded; the result read back from the per-run result file. */
export async function runUploadedWorkflow(
  run: WorkflowRun & { agentPath?: string | undefined },
): Promise<RunOutcome> {
  const { session, request, skills, names, timeoutMs } = run;
  // Paths relative to the session root (the commands' working directory).
  const agent = run.agentPath ?? bundledRuntimeAgentPath();
  await session.writeFile('ksadk-skill-runtime.mjs', await readFile(agent));
  await session.writeFile(
    'skill-workflow.mjs',
    await readFile(path.join(path.dirname(agent), 'skill-workflow.mjs')),
  );
  let total = 0;
  const skillDirs: { name: string; root: string }[] = [];
  for (const skill of skills) {
    const target = `skills/${skill.name}`;
    for (const file of await skillFiles(skill.root)) {
      const data = await readFile(path.join(skill.root, ...file.split('/')));
      total += data.byteLength;
      if (total > MAX_UPLOAD_BYTES)
        throw new Error(`the selected skills are larger than ${MAX_UPLOAD_BYTES} bytes`);
      await session.writeFile(`${target}/${file}`, data);
    }
    skillDirs.push({ name: skill.name, root: target });
  }
  const resultName = `.result-${randomBytes(12).toString('hex')}.json`;
  await session.writeFile(
    'request.json',
    JSON.stringify({
      workflow_prompt: request.prompt,
      skill_names: names,
      skills: skillDirs,
      work_dir: 'work',
      output_dir: 'output',
      timeout_ms: timeoutMs,
    }),
  );
  const process = await session.run({
    argv: [
      'node',
      'ksadk-skill-runtime.mjs',
      '--request-file',
      'request.json',
      '--result-file',
      resultName,
    ],
    timeoutMs: timeoutMs + 5000,
    ...(request.signal ? { signal: request.signal } : {}),
  });
  let report: WorkflowReport | undefined;
  try {
    const bytes = await session.readFile(resultName, { maxBytes: MAX_RESULT_BYTES });
    report = readWorkflowReport(JSON.parse(Buffer.from(bytes).toString('utf8')));
  } catch {
    report = undefined;
  }
  return { process, report };
}

/** e2b + the Python agent of existing templates: its result is its last result line. */
export async function runPythonWorkflow(
  run: WorkflowRun & {
    pythonAgentPath?: string | undefined;
    pythonAgentEnv?: Readonly<Record<string, string>> | undefined;
  },
): Promise<RunOutcome> {
  const { session, request, names, timeoutMs } = run;
  await session.writeFile(
    'request.json',
    JSON.stringify({ workflow_prompt: request.prompt, skill_names: names }),
  );
  const process = await session.run({
    argv: [
      'python',
      '-u',
      run.pythonAgentPath ?? '/home/ksadk/agent.py',
      '--request-file',
      'request.json',
    ],
    timeoutMs: timeoutMs + 5000,
    env: { ...(run.pythonAgentEnv ?? {}), KSADK_SELECTED_SKILL_NAMES: names.join(',') },
    ...(request.signal ? { signal: request.signal } : {}),
  });
  // The agent prints its result last; a prompt echoed earlier cannot stand in for it.
  const line = process.stdout
    .split('\n')
    .reverse()
    .find((candidate) => candidate.startsWith('workflow_result='));
  let report: WorkflowReport | undefined;
  try {
    report = line
      ? readWorkflowReport(JSON.parse(line.slice('workflow_result='.length)))
      : undefined;
  } catch {
    report = undefined;
  }
  return { process, report };
}
