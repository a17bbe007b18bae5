import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { SandboxBackend } from '../../sandbox/sandbox-backend.js';
import { defaultSkillRunsDir } from '../../util/private-dirs.js';
import { reserveDirectory } from '../../util/reserved-dirs.js';
import type { Skill } from '../local-skills.js';
import { closeRunFolder, openRunFolder } from './run-folders.js';
import { noSkillsResult, type SkillRuntimeResult, skillRuntimeResult } from './runtime-result.js';
import { scrubber, scrubOutcome } from './workflow-run.js';

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
  const pythonAgent = {
    pythonAgentPath: options.pythonAgentPath,
    pythonAgentEnv: options.pythonAgentEnv,
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
          const run = { session, request, skills, names, timeoutMs };
          // The workflows load with the first run.
          const [{ runPythonWorkflow, runUploadedWorkflow }, { runLocalWorkflow }] =
            await Promise.all([import('./e2b-workflow.js'), import('./local-workflow.js')]);
          const outcome = python
            ? await runPythonWorkflow({ ...run, ...pythonAgent })
            : local
              ? await runLocalWorkflow(run)
              : await runUploadedWorkflow({ ...run, agentPath: options.agentPath });
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
