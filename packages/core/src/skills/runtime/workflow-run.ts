import type { SandboxCommandResult, SandboxSession } from '../../sandbox/sandbox-backend.js';
import type { Skill } from '../local-skills.js';
import type { WorkflowReport } from './runtime-result.js';

/** What a workflow run gives back: the process result and the workflow's report, when it sent one. */
export type RunOutcome = { process: SandboxCommandResult; report: WorkflowReport | undefined };

/** One workflow run on an open session. */
export interface WorkflowRun {
  readonly session: SandboxSession;
  readonly request: { readonly prompt: string; readonly signal?: AbortSignal | undefined };
  readonly skills: readonly Skill[];
  readonly names: readonly string[];
  /** Workflow time limit. */
  readonly timeoutMs: number;
}

/** Host paths never reach the model: the run root and skill directories become labels. */
export function scrubber(labels: readonly [string, string][]): (text: string) => string {
  return (text) =>
    labels.reduce((out, [from, to]) => (from ? out.split(from).join(to) : out), text);
}

/** The outcome with every host path replaced by its label. */
export function scrubOutcome(
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
