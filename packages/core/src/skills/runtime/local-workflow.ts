import path from 'node:path';
import { executeWorkflow, tail } from '../../../bin/skill-workflow.mjs';
import type { SandboxCommandResult } from '../../sandbox/sandbox-backend.js';
import { createRunFiles } from './run-files.js';
import { readWorkflowReport } from './runtime-result.js';
import type { RunOutcome, WorkflowRun } from './workflow-run.js';

/** Local backends: the workflow logic here, its commands through the session. */
export async function runLocalWorkflow(run: WorkflowRun): Promise<RunOutcome> {
  const { session, request, skills, names, timeoutMs } = run;
  const root = session.root;
  const results: SandboxCommandResult[] = [];
  const started = Date.now();
  const workflow = await executeWorkflow(
    {
      workflow_prompt: request.prompt,
      skill_names: names,
      skills: skills.map((skill) => ({ name: skill.name, root: skill.root })),
      work_dir: path.join(root, 'work'),
      output_dir: path.join(root, 'output'),
      timeout_ms: timeoutMs,
    },
    {
      baseEnv: {},
      files: createRunFiles(root),
      runCommand: async (argv, cwd, env, limit) => {
        const result = await session.run({
          argv,
          cwd: path.relative(root, cwd),
          env,
          timeoutMs: limit,
          ...(request.signal ? { signal: request.signal } : {}),
        });
        results.push(result);
        return {
          command: argv.join(' '),
          cwd,
          exit_code: result.exit_code,
          stdout: tail(result.stdout),
          stderr: tail(result.stderr),
          timed_out: result.timed_out,
        };
      },
    },
  );
  const last = results.at(-1);
  const failed = workflow.status === 'failed';
  const process: SandboxCommandResult = {
    ok: !failed && (last?.ok ?? true),
    exit_code: last ? last.exit_code : failed ? 1 : 0,
    stdout: last?.stdout ?? '',
    stderr: last?.stderr ?? '',
    duration_ms: Date.now() - started,
    timed_out: results.some((result) => result.timed_out),
    error_type: results.find((result) => result.error_type)?.error_type ?? null,
    error_message: results.find((result) => result.error_message)?.error_message ?? null,
    output_truncated: results.some((result) => result.output_truncated),
  };
  return { process, report: readWorkflowReport(workflow) };
}
