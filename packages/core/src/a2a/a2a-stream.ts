import type { Message, StreamResponse, Task } from '@a2a-js/sdk';
import {
  type A2AResult,
  type A2ATaskState,
  resultOfMessage,
  resultOfTask,
  taskStateOf,
  textOf,
} from './a2a-result.js';
import { a2aFailure } from './failure.js';

/** One streamed event. */
export interface A2AStreamEvent {
  type: 'text' | 'status';
  /** New text (artifact or message) for `text`; the status message for `status`. */
  text: string;
  state: A2ATaskState;
  task_id: string | undefined;
  context_id: string | undefined;
}

/** What a stream has said so far: its task (updates folded in), a direct reply, the last ids. */
export interface StreamState {
  task: Task | undefined;
  direct: Message | undefined;
  ids: { task_id: string | undefined; context_id: string | undefined };
}

/** The state of a stream that has said nothing yet. */
export const emptyStreamState = (): StreamState => ({
  task: undefined,
  direct: undefined,
  ids: { task_id: undefined, context_id: undefined },
});

/** Folds one stream event into `stream`; returns the event to pass on, if there is one. */
export function foldStreamEvent(
  stream: StreamState,
  event: StreamResponse,
): A2AStreamEvent | undefined {
  const payload = event.payload;
  if (!payload) return undefined;
  if (payload.$case === 'message') {
    const direct = payload.value;
    stream.direct = direct;
    return {
      type: 'text',
      text: textOf(direct.parts),
      state: 'completed',
      task_id: direct.taskId || undefined,
      context_id: direct.contextId || undefined,
    };
  }
  if (payload.$case === 'task') {
    stream.task = payload.value;
    stream.ids.task_id = payload.value.id;
    stream.ids.context_id = payload.value.contextId;
    return undefined;
  }
  if (payload.$case === 'statusUpdate') {
    const update = payload.value;
    stream.ids.task_id = update.taskId;
    stream.ids.context_id = update.contextId;
    const state = taskStateOf(update.status?.state);
    if (stream.task) stream.task = { ...stream.task, status: update.status };
    return { type: 'status', text: textOf(update.status?.message?.parts), state, ...stream.ids };
  }
  if (payload.$case === 'artifactUpdate') {
    const artifact = payload.value.artifact;
    if (stream.task && artifact) {
      stream.task = { ...stream.task, artifacts: [...stream.task.artifacts, artifact] };
    }
    const chunk = textOf(artifact?.parts);
    if (chunk) {
      return {
        type: 'text',
        text: chunk,
        state: 'working',
        task_id: payload.value.taskId,
        context_id: payload.value.contextId,
      };
    }
  }
  return undefined;
}

/** The result of a stream that ended: its direct reply, else its task, else `a2a_error`. */
export function streamResult(stream: StreamState): A2AResult {
  if (stream.direct) return resultOfMessage(stream.direct);
  if (stream.task) return resultOfTask(stream.task);
  return a2aFailure('a2a_error', 'A2A response did not include a task result', {
    state: 'unknown',
    output: '',
    ...stream.ids,
  });
}
