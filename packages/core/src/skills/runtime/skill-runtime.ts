import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { executeWorkflow, tail } from '../../../bin/skill-workflow.mjs';
import type {
  SandboxBackend,
  SandboxCommandResult,
  SandboxSession,
} from '../../sandbox/sandbox-backend.js';
import { removeNoFollow, writeExclusive } from '../../util/no-follow-files.js';
import { defaultSkillRunsDir } from '../../util/private-dirs.js';
import { reserveDirectory } from '../../util/reserved-dirs.js';
import { safePathSegment } from '../../util/safe-segment.js';
import type { Skill } from '../local-skills.js';
import { createRunFiles } from './run-files.js';
import { bundledRuntimeAgentPath } from './runtime-agent-path.js';
import {
  noSkillsResult,
  readWorkflowReport,
  type SkillRuntimeResult,
  skillRuntimeResult,
  type WorkflowReport,
} from './runtime-result.js';

/** The skills offered to one run: loaded by the host (local, and remote ones already verified). */
export type SkillSource = (request: {
  prompt: string;
  skillNames: readonly string[];
}) => Promise<{ skills: readonly Skill[]; warnings: readonly string[] }>;

/** Options for {@link createSkillRuntime}. */
export interface SkillRuntimeOptions {
  /** Where workflows run. */
  backend: SandboxBackend;
  /** The skills a run may use. */
  skills: SkillSource;
  /** Workflow time limit. @default 900 000 ms (`KSADK_SKILL_RUNTIME_TIMEOUT`, seconds) */
  timeoutMs?: number;
  /** Network for workflows (bubblewrap, e2b). @default false */
  network?: boolean;
  /** Host-chosen variables for workflows (never secrets of the host by default). */
  env?: Readonly<Record<string, string>>;
  /**
   * Local backends: where per-run directories live (`<runsDir>/<account>/<session>/<run>`).
   * @default `<session dir>/skill-runs`
   */
  runsDir?: string;
  /** Runs kept per session; older ones are removed. @default 20 */
  keepRuns?: number;
  /** e2b: the runtime agent uploaded into the sandbox. @default the bundled `bin/ksadk-skill-runtime.mjs` */
  agentPath?: string;
  /**
   * e2b only: run KsADK's Python runtime agent of existing sandbox templates instead of the
   * bundled Node agent. It loads skills itself, so it gets `pythonAgentEnv` (the Skill Service
   * variables it needs) and its result is the **last** `workflow_result=` line of its output.
   * @default 'node'
   */
  e2bAgent?: 'node' | 'python';
  /** e2b + python: the agent inside the template. @default /home/ksadk/agent.py */
  pythonAgentPath?: string;
  /** e2b + python: variables the Python agent needs (Skill Service URL, token, spaces). */
  pythonAgentEnv?: Readonly<Record<string, string>>;
}

/** One workflow run. */
export interface SkillRunRequest {
  prompt: string;
  skillNames?: readonly string[];
  signal?: AbortSignal;
  /** Keys the run directory. */
  accountId?: string;
  sessionId?: string;
}

/** Runs skill workflows on one backend. */
export interface SkillRuntime {
  readonly backend: SandboxBackend['name'];
  run(request: SkillRunRequest): Promise<SkillRuntimeResult>;
}

type RunOutcome = { process: SandboxCommandResult; report: WorkflowReport | undefined };

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

const RUN_NAME = /^run-(\d{13})-[0-9a-f]{12}$/;
/** Runs in progress in this process (their host folders): never pruned. */
const activeRuns = new Set<string>();
/** A run older than its time limit and this is over, whoever started it. */
const FINISHED_AFTER_MS = 60_000;

/**
 * Removes all but the newest `keep` run folders of a session folder — only runs that are over: not
 * running here, and either marked done (`<run>.done` beside it, where no sandbox can write) or
 * older than the time limit allows (a run of another process). Each goes through a removal that
 * follows no link at any depth. Best effort: a failure leaves the folder for the next run.
 */
async function pruneRuns(sessionDir: string, keep: number, timeoutMs: number): Promise<void> {
  const entries = await readdir(sessionDir).catch(() => [] as string[]);
  const done = new Set(entries.filter((name) => name.endsWith('.done')));
  const runs = entries.filter((name) => RUN_NAME.test(name)).sort();
  const now = Date.now();
  for (const name of runs.slice(0, Math.max(0, runs.length - keep))) {
    if (activeRuns.has(path.join(sessionDir, name))) continue;
    const started = Number(RUN_NAME.exec(name)![1]);
    if (!done.has(`${name}.done`) && now - started < timeoutMs + FINISHED_AFTER_MS) continue;
    await removeNoFollow(sessionDir, name).catch(() => undefined);
    await removeNoFollow(sessionDir, `${name}.done`).catch(() => undefined);
  }
}

/**
 * Makes a run's own folder (`<runsDir>/<account>/<session>/<run>`), marks it running, and prunes
 * the session's old runs.
 */
async function openRunFolder(
  runsDir: string,
  request: SkillRunRequest,
  runId: string,
  limits: { keepRuns: number; timeoutMs: number },
): Promise<string> {
  const sessionDir = path.join(
    runsDir,
    safePathSegment(request.accountId ?? ''),
    safePathSegment(request.sessionId ?? ''),
  );
  const hostRoot = path.join(sessionDir, runId);
  await mkdir(hostRoot, { recursive: true, mode: 0o700 });
  if (!(await lstat(hostRoot)).isDirectory())
    throw new Error('the run directory is not a directory');
  activeRuns.add(hostRoot);
  await pruneRuns(sessionDir, limits.keepRuns, limits.timeoutMs);
  return hostRoot;
}

/** Marks a run as over, beside its folder (out of its sandbox's reach). */
async function closeRunFolder(hostRoot: string): Promise<void> {
  activeRuns.delete(hostRoot);
  await writeExclusive(path.dirname(hostRoot), `${path.basename(hostRoot)}.done`, '').catch(
    () => undefined,
  );
}

/** Host paths never reach the model: the run root and skill directories become labels. */
function scrubber(labels: readonly [string, string][]): (text: string) => string {
  return (text) =>
    labels.reduce((out, [from, to]) => (from ? out.split(from).join(to) : out), text);
}

function scrubOutcome(
  { process, report }: RunOutcome,
  scrub: (text: string) => string,
): RunOutcome {
  return {
    process: { ...process, stdout: scrub(process.stdout), stderr: scrub(process.stderr) },
    report: report && {
      ...report,
      commands: report.commands.map((command) => ({
        ...command,
        command: scrub(command.command),
        cwd: scrub(command.cwd),
        stdout: scrub(command.stdout),
        stderr: scrub(command.stderr),
      })),
      ...(report.error ? { error: scrub(report.error) } : {}),
    },
  };
}

/**
 * The Skill Runtime: runs a skill workflow (`scripts/run-workflow.sh`) on a sandbox backend. The
 * host loads and verifies the skills first. On `local_process` and `bubblewrap` the host drives
 * the workflow itself (the shared logic of the runtime agent, commands run through the session
 * — no extra process); on `e2b` the bundled runtime agent and the skills are uploaded, and the
 * agent writes its result to a result file named per run. The prompt never travels through
 * anything that is parsed back. Results always carry `ok`.
 *
 * @example
 * ```ts
 * const runtime = createSkillRuntime({
 *   backend: createBubblewrapBackend(),
 *   skills: async () => loadLocalSkills('./skills'),
 * });
 * const result = await runtime.run({ prompt: 'Write the weekly report', skillNames: ['report'] });
 * ```
 */
export function createSkillRuntime(options: SkillRuntimeOptions): SkillRuntime {
  const { backend } = options;
  const timeoutMs = options.timeoutMs ?? 900_000;
  const keepRuns = options.keepRuns ?? 20;
  const runsDir = path.resolve(options.runsDir ?? defaultSkillRunsDir());
  const local = backend.name === 'local_process' || backend.name === 'bubblewrap';
  if (local) reserveDirectory(runsDir);

  /** Local backends: the workflow logic here, its commands through the session. */
  const runLocal = async (
    session: SandboxSession,
    request: SkillRunRequest,
    skills: readonly Skill[],
    names: readonly string[],
  ): Promise<RunOutcome> => {
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
  };

  /** e2b: the agent and the skills uploaded; the result read back from the per-run result file. */
  const runRemote = async (
    session: SandboxSession,
    request: SkillRunRequest,
    skills: readonly Skill[],
    names: readonly string[],
  ): Promise<RunOutcome> => {
    // Paths relative to the session root (the commands' working directory).
    const agent = options.agentPath ?? bundledRuntimeAgentPath();
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
  };

  /** e2b + the Python agent of existing templates: its result is its last result line. */
  const runPython = async (
    session: SandboxSession,
    request: SkillRunRequest,
    names: readonly string[],
  ): Promise<RunOutcome> => {
    await session.writeFile(
      'request.json',
      JSON.stringify({ workflow_prompt: request.prompt, skill_names: names }),
    );
    const process = await session.run({
      argv: [
        'python',
        '-u',
        options.pythonAgentPath ?? '/home/ksadk/agent.py',
        '--request-file',
        'request.json',
      ],
      timeoutMs: timeoutMs + 5000,
      env: { ...(options.pythonAgentEnv ?? {}), KSADK_SELECTED_SKILL_NAMES: names.join(',') },
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
  };

  return {
    backend: backend.name,
    async run(request) {
      const names = [...(request.skillNames ?? [])];
      const runId = `run-${Date.now()}-${randomBytes(6).toString('hex')}`;
      const python = backend.name === 'e2b' && options.e2bAgent === 'python';
      const { skills, warnings } = python
        ? { skills: [], warnings: [] }
        : await options.skills({ prompt: request.prompt, skillNames: names });
      // Nothing to run: answered before a sandbox or a run folder is made.
      if (!python && skills.length === 0) return noSkillsResult(backend.name, runId, warnings);
      const hostRoot = local
        ? await openRunFolder(runsDir, request, runId, { keepRuns, timeoutMs })
        : undefined;
      try {
        const session = await backend.createSession({
          sessionId: request.sessionId ?? runId,
          ...(hostRoot ? { hostRoot } : {}),
          readOnlyPaths: local ? skills.map((skill) => skill.root) : [],
          env: { ...(options.env ?? {}), KSADK_SELECTED_SKILL_NAMES: names.join(',') },
          network: options.network ?? false,
        });
        try {
          const outcome = python
            ? await runPython(session, request, names)
            : local
              ? await runLocal(session, request, skills, names)
              : await runRemote(session, request, skills, names);
          const scrub = scrubber([
            ...skills.map((skill): [string, string] => [skill.root, `skills/${skill.name}`]),
            [session.root, '.'],
          ]);
          const { process, report } = scrubOutcome(outcome, scrub);
          return skillRuntimeResult(
            backend.name,
            `${session.id}/${runId}`,
            process,
            report,
            warnings,
          );
        } finally {
          await session.kill();
        }
      } finally {
        if (hostRoot) await closeRunFolder(hostRoot);
      }
    },
  };
}
