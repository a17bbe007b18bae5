import type { SandboxCommandResult } from '../../sandbox/sandbox-backend.js';
import { skillsFailure } from '../failure.js';

/** One command the workflow ran, as the runtime agent recorded it (output tails). */
export interface WorkflowCommand {
  command: string;
  cwd: string;
  exit_code: number | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
}

/** What `execute_skills` returns: the process result and the workflow's own report. */
export interface SkillRuntimeResult {
  /** The workflow ran to completion with status `ok` and exit code 0. */
  ok: boolean;
  execution_context: string;
  runtime_id: string;
  exit_code: number | null;
  stdout: string;
  stderr: string;
  duration_ms: number;
  timed_out: boolean;
  error_type: string | null;
  error_message: string | null;
  /** `ok`, `failed`, `skipped` (no workflow entry point), `no_skills`. */
  status: string;
  executed_skill: string | null;
  /** Run-relative handles (`output/report.md`), never host paths. */
  output_files: string[];
  /**
   * A bound stopped the listing of the output folder (1,000 files, 10,000 entries, 32 levels or
   * 5 s): `output_files` holds what was found before it.
   */
  output_files_truncated: boolean;
  selected_skills: string[];
  loaded_skills: string[];
  warnings: string[];
  commands: WorkflowCommand[];
}

const strings = (value: unknown, max = 1000): string[] =>
  Array.isArray(value)
    ? value
        .filter((item): item is string => typeof item === 'string')
        .slice(0, max)
        .map((item) => item.slice(0, 1024))
    : [];
const text = (value: unknown, max = 8000): string =>
  typeof value === 'string' ? value.slice(0, max) : '';

/** The agent's report, read defensively: only known fields, typed, bounded. */
export type WorkflowReport = Pick<
  SkillRuntimeResult,
  | 'status'
  | 'executed_skill'
  | 'output_files'
  | 'output_files_truncated'
  | 'selected_skills'
  | 'loaded_skills'
  | 'warnings'
  | 'commands'
> & { error: string | null };

/** Reads a runtime agent report (result file or the Python agent's result line). */
export function readWorkflowReport(value: unknown): WorkflowReport | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const raw = value as Record<string, unknown>;
  const status = text(raw['status'], 40);
  if (!status) return undefined;
  const commands = Array.isArray(raw['commands'])
    ? raw['commands']
        .filter(
          (item): item is Record<string, unknown> => typeof item === 'object' && item !== null,
        )
        .slice(0, 20)
        .map((item) => ({
          command: text(item['command'], 2000),
          cwd: text(item['cwd'], 1024),
          exit_code: typeof item['exit_code'] === 'number' ? item['exit_code'] : null,
          stdout: text(item['stdout'], 4000),
          stderr: text(item['stderr'], 4000),
          timed_out: item['timed_out'] === true,
        }))
    : [];
  return {
    status,
    executed_skill:
      typeof raw['executed_skill'] === 'string' ? raw['executed_skill'].slice(0, 200) : null,
    output_files: strings(raw['output_files']),
    output_files_truncated: raw['output_files_truncated'] === true,
    selected_skills: strings(raw['selected_skills'], 50),
    loaded_skills: strings(raw['loaded_skills'], 500),
    warnings: strings(raw['warnings'], 100),
    commands,
    error: typeof raw['error'] === 'string' ? raw['error'].slice(0, 2000) : null,
  };
}

const NO_SKILLS_MESSAGE =
  'no skill available here matches (see warnings); list_skills shows the ones there are';

/**
 * The result of a run that found no skill to run (unknown names, or none matching): answered
 * before any sandbox is started.
 */
export function noSkillsResult(
  backend: string,
  runtimeId: string,
  warnings: readonly string[],
): SkillRuntimeResult {
  return skillsFailure('skill_not_found', NO_SKILLS_MESSAGE, {
    execution_context: `skill-runtime/${backend}`,
    runtime_id: runtimeId,
    exit_code: null,
    stdout: '',
    stderr: '',
    duration_ms: 0,
    timed_out: false,
    status: 'no_skills',
    executed_skill: null,
    output_files: [],
    output_files_truncated: false,
    selected_skills: [],
    loaded_skills: [],
    warnings: [...warnings],
    commands: [],
  });
}

/** Joins the process result and the report into what the model sees; `ok` is always present. */
export function skillRuntimeResult(
  backend: string,
  runtimeId: string,
  process: SandboxCommandResult,
  report: WorkflowReport | undefined,
  warnings: readonly string[],
): SkillRuntimeResult {
  let errorType = process.error_type;
  let errorMessage = process.error_message;
  if (!errorType && !report) {
    errorType = 'invalid_skill_runtime_result';
    errorMessage = 'the runtime agent wrote no readable result';
  } else if (!errorType && report?.status === 'failed') {
    errorType = 'workflow_failed';
    errorMessage = report.error ?? 'the workflow failed';
  } else if (!errorType && report?.status === 'no_skills') {
    errorType = 'skill_not_found';
    errorMessage = report.error ?? NO_SKILLS_MESSAGE;
  } else if (!errorType && report?.status === 'skipped') {
    errorType = 'no_workflow';
    errorMessage =
      report.error ??
      'the selected skills have no workflow to run (scripts/run-workflow.sh); read them with load_skill and follow their steps';
  }
  const status = report?.status ?? 'failed';
  return {
    ok: process.exit_code === 0 && !process.timed_out && !errorType && status === 'ok',
    execution_context: `skill-runtime/${backend}`,
    runtime_id: runtimeId,
    exit_code: process.exit_code,
    stdout: process.stdout,
    stderr: process.stderr,
    duration_ms: process.duration_ms,
    timed_out: process.timed_out,
    error_type: errorType,
    error_message: errorMessage,
    status,
    executed_skill: report?.executed_skill ?? null,
    output_files: report?.output_files ?? [],
    output_files_truncated: report?.output_files_truncated ?? false,
    selected_skills: report?.selected_skills ?? [],
    loaded_skills: report?.loaded_skills ?? [],
    warnings: [...warnings, ...(report?.warnings ?? [])],
    commands: report?.commands ?? [],
  };
}
