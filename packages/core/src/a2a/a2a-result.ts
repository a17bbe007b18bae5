import { BodyTooLargeError } from '../util/body-limit.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import { a2aFailure } from './failure.js';

/** Where a remote task stands. */
export type A2ATaskState =
  | 'submitted'
  | 'working'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'rejected'
  | 'input-required'
  | 'auth-required'
  | 'unknown';

/** The outcome of a request to a remote agent. `ok` is true only for a completed task or a direct reply. */
export interface A2AResult {
  ok: boolean;
  state: A2ATaskState;
  /** The agent's text: artifacts, else the status message, else its last message. */
  output: string;
  task_id: string | undefined;
  context_id: string | undefined;
  /** For `input-required` / `auth-required`: what the agent needs. */
  needs?: 'input' | 'auth';
  error_type?: string;
  error_message?: string;
}

type Task = import('@a2a-js/sdk').Task;
type Message = import('@a2a-js/sdk').Message;
type Part = import('@a2a-js/sdk').Part;

const STATES: Record<number, A2ATaskState> = {
  1: 'submitted',
  2: 'working',
  3: 'completed',
  4: 'failed',
  5: 'canceled',
  6: 'input-required',
  7: 'rejected',
  8: 'auth-required',
};

/** The state named by the SDK's `TaskState` number (`unknown` when absent or unrecognised). */
export const taskStateOf = (state: number | undefined): A2ATaskState =>
  STATES[state ?? 0] ?? 'unknown';

/** The text of message parts: text parts as they are, data parts as JSON, one per line. */
export const textOf = (parts: readonly Part[] | undefined): string =>
  (parts ?? [])
    .map((part) =>
      part.content?.$case === 'text'
        ? part.content.value
        : part.content?.$case === 'data'
          ? JSON.stringify(part.content.value)
          : '',
    )
    .filter(Boolean)
    .join('\n');

/** A task as a result: `ok` when completed, `needs` when interrupted, a failure otherwise. */
export function resultOfTask(task: Task): A2AResult {
  const state = taskStateOf(task.status?.state);
  const artifacts = task.artifacts
    .map((artifact) => textOf(artifact.parts))
    .filter(Boolean)
    .join('\n');
  const status = textOf(task.status?.message?.parts);
  const last = [...task.history].reverse().find((message) => message.role === 2);
  const output = artifacts || status || textOf(last?.parts);
  const base = {
    state,
    output,
    task_id: task.id || undefined,
    context_id: task.contextId || undefined,
  };
  if (state === 'completed') return { ok: true, ...base };
  if (state === 'input-required') return { ok: false, ...base, needs: 'input' };
  if (state === 'auth-required') return { ok: false, ...base, needs: 'auth' };
  if (state === 'failed' || state === 'canceled' || state === 'rejected') {
    return a2aFailure(
      `a2a_task_${state}`,
      output || `Remote A2A task ended in state: ${state}`,
      base,
    );
  }
  return a2aFailure('a2a_task_incomplete', `Remote A2A task is still ${state}`, base);
}

/** A direct reply (a message, no task) as a completed result. */
export function resultOfMessage(message: Message): A2AResult {
  return {
    ok: true,
    state: 'completed',
    output: textOf(message.parts),
    task_id: message.taskId || undefined,
    context_id: message.contextId || undefined,
  };
}

/** A thrown error as a failure: `too_large` past `limit` response bytes, else `a2a_error`. */
export function errorResult(error: unknown, limit: number): A2AResult {
  const tooLarge =
    error instanceof BodyTooLargeError ||
    (error as { cause?: unknown })?.cause instanceof BodyTooLargeError;
  return a2aFailure(
    tooLarge ? 'too_large' : 'a2a_error',
    tooLarge
      ? `The remote agent's reply is larger than ${limit} bytes and was not read.`
      : modelSafeErrorMessage(error),
    { state: 'unknown' as const, output: '', task_id: undefined, context_id: undefined },
  );
}
