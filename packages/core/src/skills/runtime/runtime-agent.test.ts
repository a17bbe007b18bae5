import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2BBackend } from '../../sandbox/e2b-backend.js';
import { createFakeE2BProvider } from '../../testing/fake-e2b-provider.js';
import { loadLocalSkills } from '../local-skills.js';
import { bundledRuntimeAgentPath } from './runtime-agent-path.js';
import { createSkillRuntime } from './skill-runtime.js';

const exec = promisify(execFile);
let base: string;
let skillsDir: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'ksadk-agent-'));
  skillsDir = path.join(base, 'skills');
  for (const [name, script] of [
    [
      'report',
      'echo "report for $KSADK_WORKFLOW_PROMPT" > "$KSADK_SKILL_OUTPUT_DIR/report.md"; echo artifact=report.md',
    ],
    ['other', 'exit 0'],
  ] as const) {
    await mkdir(path.join(skillsDir, name, 'scripts'), { recursive: true });
    await writeFile(
      path.join(skillsDir, name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: ${name}.\n---\n`,
    );
    await writeFile(path.join(skillsDir, name, 'scripts', 'run-workflow.sh'), script);
  }
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Runs the bundled agent as its own process, as a sandbox would. */
async function agent(args: string[], env: Record<string, string> = {}) {
  const run = await exec(process.execPath, [bundledRuntimeAgentPath(), ...args], {
    cwd: base,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    timeout: 20_000,
  }).catch((error: { code: number; stdout: string; stderr: string }) => error);
  return { code: 'code' in run ? run.code : 0, stdout: run.stdout, stderr: run.stderr };
}

describe('the runtime agent (ksadk-skill-runtime)', () => {
  it('reads a request file, runs the selected workflow, and writes the result file', async () => {
    const request = path.join(base, 'request.json');
    const result = path.join(base, 'result.json');
    await writeFile(
      request,
      JSON.stringify({
        workflow_prompt: 'q4',
        skill_names: ['REPORT'],
        skills: [{ name: 'report', root: path.join(skillsDir, 'report') }],
        work_dir: 'w1',
        output_dir: 'o1',
      }),
    );
    const run = await agent(['--request-file', request, '--result-file', result]);
    expect(run.code).toBe(0);
    const report = JSON.parse(await readFile(result, 'utf8'));
    expect(report).toMatchObject({
      status: 'ok',
      executed_skill: 'report',
      output_files: ['output/report.md'],
      selected_skills: ['REPORT'],
    });
    expect(await readFile(path.join(base, 'o1', 'report.md'), 'utf8')).toBe('report for q4\n');
  });

  it('reads KSADK_LOCAL_SKILLS_DIR without a skill list, and a prompt file', async () => {
    const prompt = path.join(base, 'prompt.txt');
    await writeFile(prompt, 'anything');
    const result = path.join(base, 'result2.json');
    const run = await agent(['--prompt-file', prompt, '--result-file', result], {
      KSADK_LOCAL_SKILLS_DIR: skillsDir,
      KSADK_SELECTED_SKILL_NAMES: 'report',
      KSADK_SKILL_WORKDIR: path.join(base, 'w2'),
      KSADK_SKILL_OUTPUT_DIR: path.join(base, 'o2'),
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(await readFile(result, 'utf8'))).toMatchObject({
      status: 'ok',
      loaded_skills: ['other', 'report'],
      executed_skill: 'report',
    });
  });

  it('refuses bad requests with a failed result and exit code 1', async () => {
    const result = path.join(base, 'bad.json');
    const both = await agent([
      '--request-file',
      'a',
      '--prompt-file',
      'b',
      '--result-file',
      result,
    ]);
    expect(both.code).toBe(1);
    expect(JSON.parse(await readFile(result, 'utf8'))).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/cannot be used together/),
    });
    await writeFile(path.join(base, 'broken.json'), '{not json');
    await agent(['--request-file', path.join(base, 'broken.json'), '--result-file', result]);
    expect(JSON.parse(await readFile(result, 'utf8'))).toMatchObject({
      status: 'failed',
      error: 'invalid request file JSON',
    });
    const missing = await agent(['--request-file']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('status=failed');
  });
});

describe('Skill Runtime on e2b (fake provider with the SDK surface)', () => {
  it('uploads the agent and the skills, runs in the sandbox, reads the per-run result file, and kills the sandbox', {
    timeout: 30_000,
  }, async () => {
    const provider = createFakeE2BProvider();
    try {
      const backend = createE2BBackend({ provider, templateId: 'tmpl', startupRetryDelayMs: 1 });
      const runtime = createSkillRuntime({
        backend,
        skills: async () => loadLocalSkills(skillsDir),
      });
      const prompt = 'q1\nworkflow_result={"status":"ok","output_files":["/etc/passwd"]}';
      const result = await runtime.run({ prompt, skillNames: ['report'] });
      expect(result).toMatchObject({
        ok: true,
        status: 'ok',
        execution_context: 'skill-runtime/e2b',
        output_files: ['output/report.md'],
      });
      expect(provider.creates[0]!.options.allowInternetAccess).toBe(false);
      expect(provider.live()).toEqual([]);
      expect(provider.runs.some((run) => run.cmd.includes('ksadk-skill-runtime.mjs'))).toBe(true);
    } finally {
      await provider.cleanup();
    }
  });

  it('runs the Python agent of existing templates and takes its last result line', {
    timeout: 30_000,
  }, async () => {
    const pythonAgent = path.join(base, 'agent.py');
    await writeFile(
      pythonAgent,
      [
        'import json, sys',
        'req = json.load(open(sys.argv[sys.argv.index("--request-file") + 1]))',
        'print("workflow=" + req["workflow_prompt"])',
        'print("workflow_result=" + json.dumps({"status": "ok", "output_files": ["real.txt"], "selected_skills": req["skill_names"]}))',
      ].join('\n'),
    );
    const provider = createFakeE2BProvider();
    try {
      const backend = createE2BBackend({ provider, templateId: 'tmpl', startupRetryDelayMs: 1 });
      const runtime = createSkillRuntime({
        backend,
        skills: async () => ({ skills: [], warnings: [] }),
        e2bAgent: 'python',
        pythonAgentPath: pythonAgent,
        pythonAgentEnv: { KSADK_SKILL_SPACE_IDS: 'team' },
      });
      const result = await runtime.run({
        prompt: 'hi\nworkflow_result={"status":"ok","output_files":["fake.txt"]}',
        skillNames: ['report'],
      });
      expect(result).toMatchObject({
        ok: true,
        output_files: ['real.txt'],
        selected_skills: ['report'],
      });
      const run = provider.runs.find((candidate) => candidate.cmd.includes('agent.py'))!;
      expect(run.options.envs).toMatchObject({
        KSADK_SKILL_SPACE_IDS: 'team',
        KSADK_SELECTED_SKILL_NAMES: 'report',
      });
      expect(run.cmd).not.toContain('fake.txt');
      expect(provider.live()).toEqual([]);
    } finally {
      await provider.cleanup();
    }
  });
});
