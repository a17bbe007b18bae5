#!/usr/bin/env node
// @ts-check
// The KsADK Skill Runtime agent: runs one skill workflow and writes its result to a file.
//
//   ksadk-skill-runtime --request-file <request.json> --result-file <result.json>
//   ksadk-skill-runtime --prompt-file <prompt.txt> --result-file <result.json>
//
// The request names the prompt, the selected skills and (when the host prepared them) each
// skill's directory, the work and output directories and the time limit. Without `skills`, the
// agent reads the skill directories under KSADK_LOCAL_SKILLS_DIR. See skill-workflow.mjs for
// what a run does. The result is written to the result file (never parsed from stdout),
// atomically. Only Node built-ins are used, so the files run unchanged in a sandbox.
import { spawn } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { executeWorkflow, tail } from './skill-workflow.mjs';

const MAX_STREAM = 1024 * 1024;

/** @param {string[]} argv */
function parseArgs(argv) {
  /** @type {Record<string, string>} */
  const options = {};
  const positional = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = /** @type {string} */ (argv[index]);
    if (arg === '--request-file' || arg === '--prompt-file' || arg === '--result-file') {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('--'))
        throw new Error(`${arg} requires a file path`);
      options[arg.slice(2)] = value;
      index += 1;
    } else positional.push(arg);
  }
  if (options['request-file'] && options['prompt-file'])
    throw new Error('--prompt-file and --request-file cannot be used together');
  return { options, positional };
}

/**
 * Runs one command in its own process group; kills the group at the deadline and once the
 * command exits (so nothing it started outlives it). Output is teed to this process's streams.
 * @type {import('./skill-workflow.mjs').RunCommand}
 */
function runCommand(argv, cwd, env, timeoutMs) {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    /** @param {string} current @param {Buffer} chunk */
    const keep = (current, chunk) => {
      const next = current + chunk.toString('utf8');
      return next.length > MAX_STREAM ? next.slice(-MAX_STREAM) : next;
    };
    const child = spawn(/** @type {string} */ (argv[0]), argv.slice(1), {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.stdout.on('data', (chunk) => {
      stdout = keep(stdout, chunk);
      process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr = keep(stderr, chunk);
      process.stderr.write(chunk);
    });
    const finish = (/** @type {number | null} */ code) => {
      clearTimeout(timer);
      killGroup();
      resolve({
        command: argv.join(' '),
        cwd,
        exit_code: timedOut ? null : code,
        stdout: tail(stdout),
        stderr: tail(stderr),
        timed_out: timedOut,
      });
    };
    child.once('error', (error) => {
      stderr += String(error.message);
      finish(null);
    });
    // `exit`, not `close`: a background grandchild holding the pipes must not keep us waiting.
    child.once('exit', (code) => finish(code));
  });
}

/** @param {string} file @param {unknown} value */
function writeResult(file, value) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(value), { mode: 0o600 });
  renameSync(temporary, file);
}

async function main() {
  let resultFile = '';
  /** @type {import('./skill-workflow.mjs').WorkflowResult} */
  let result;
  // The result file first, so even a bad command line leaves a result where the host looks.
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--result-file');
  const named = at >= 0 ? argv[at + 1] : undefined;
  if (named && !named.startsWith('--')) resultFile = named;
  try {
    const { options, positional } = parseArgs(argv);
    resultFile = options['result-file'] ?? '';
    if (!resultFile) throw new Error('--result-file is required');
    /** @type {any} */
    let request = {};
    if (options['request-file']) {
      try {
        request = JSON.parse(readFileSync(options['request-file'], 'utf8'));
      } catch {
        throw new Error('invalid request file JSON');
      }
      if (!request || typeof request !== 'object' || Array.isArray(request))
        throw new Error('the request file must hold a JSON object');
    } else if (options['prompt-file'])
      request = { workflow_prompt: readFileSync(options['prompt-file'], 'utf8') };
    else if (positional[0] !== undefined) request = { workflow_prompt: positional[0] };
    /** @type {Record<string, string>} */
    const baseEnv = {};
    for (const [key, value] of Object.entries(process.env))
      if (typeof value === 'string') baseEnv[key] = value;
    if (!request.work_dir && baseEnv['KSADK_SKILL_WORKDIR'])
      request.work_dir = baseEnv['KSADK_SKILL_WORKDIR'];
    if (!request.output_dir && baseEnv['KSADK_SKILL_OUTPUT_DIR'])
      request.output_dir = baseEnv['KSADK_SKILL_OUTPUT_DIR'];
    result = await executeWorkflow(request, {
      runCommand,
      baseEnv,
      skillsDir: baseEnv['KSADK_LOCAL_SKILLS_DIR'] ?? '',
    });
  } catch (error) {
    result = {
      status: 'failed',
      error: error instanceof Error ? error.message : String(error),
      output_files: [],
      artifacts: [],
      output_files_truncated: false,
      commands: [],
      selected_skills: [],
      loaded_skills: [],
      warnings: [],
      executed_skill: null,
    };
  }
  process.stdout.write(
    `\nloaded_skills=${result.loaded_skills.join(',')} status=${result.status}\n`,
  );
  if (resultFile) writeResult(resultFile, result);
  process.exitCode = result.status === 'failed' ? 1 : 0;
}

await main();
