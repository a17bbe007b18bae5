import { randomUUID } from 'node:crypto';
import type { AgentCard, Message, Part } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';

type Sdk = typeof import('@a2a-js/sdk');
type AgentEvents = typeof import('@a2a-js/sdk/server')['AgentEvent'];

/** The parts of the SDK's request context the test agent reads. */
interface TestAgentRequest {
  userMessage: Message;
  taskId: string;
  contextId: string;
  task?: unknown;
}

/** Where the test agent publishes its events. */
interface TestAgentBus {
  publish(event: unknown): void;
  finished(): void;
}

/** The test agent's executor, for the SDK's `DefaultRequestHandler`. */
export interface TestAgentExecutor {
  cancelTask(): Promise<undefined>;
  execute(context: TestAgentRequest, bus: TestAgentBus): Promise<void>;
}

/** The status and artifact events of one task, stamped with its ids. */
interface TaskEvents {
  status(state: number, reply?: string): AgentExecutionEvent;
  artifact(value: string): AgentExecutionEvent;
}

const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

const agentMessage = (sdk: Sdk, contextId: string, taskId: string, reply: string): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId,
  role: sdk.Role.ROLE_AGENT,
  parts: [textPart(reply)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

function taskEvents(
  sdk: Sdk,
  AgentEvent: AgentEvents,
  { taskId, contextId }: TestAgentRequest,
): TaskEvents {
  return {
    status: (state, reply) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state,
          timestamp: new Date().toISOString(),
          message: reply ? agentMessage(sdk, contextId, taskId, reply) : undefined,
        },
        metadata: undefined,
      }),
    artifact: (value) =>
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: 'result',
          description: '',
          parts: [textPart(value)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
  };
}

/** The task's `submitted` event: the request's message as its history. */
const submittedTask = (
  sdk: Sdk,
  AgentEvent: AgentEvents,
  { taskId, contextId, userMessage }: TestAgentRequest,
): AgentExecutionEvent =>
  AgentEvent.task({
    id: taskId,
    contextId,
    status: {
      state: sdk.TaskState.TASK_STATE_SUBMITTED,
      timestamp: new Date().toISOString(),
      message: undefined,
    },
    artifacts: [],
    history: [userMessage],
    metadata: undefined,
  });

/** After `working`: a failure, a question, a sign-in, n characters, three chunks, or an echo. */
async function finishTask(
  sdk: Sdk,
  input: string,
  events: TaskEvents,
  bus: TestAgentBus,
): Promise<void> {
  const { TaskState } = sdk;
  if (input.startsWith('fail'))
    bus.publish(events.status(TaskState.TASK_STATE_FAILED, 'the remote agent could not do it'));
  else if (input.startsWith('ask'))
    bus.publish(events.status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which date?'));
  else if (input.startsWith('login'))
    bus.publish(events.status(TaskState.TASK_STATE_AUTH_REQUIRED, 'Please sign in.'));
  else if (input.startsWith('big:')) {
    bus.publish(events.artifact('x'.repeat(Number(input.slice(4)))));
    bus.publish(events.status(TaskState.TASK_STATE_COMPLETED));
  } else if (input.startsWith('stream')) {
    for (const chunk of ['one ', 'two ', 'three']) {
      bus.publish(events.artifact(chunk));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    bus.publish(events.status(TaskState.TASK_STATE_COMPLETED));
  } else {
    bus.publish(events.artifact(`done: ${input}`));
    bus.publish(events.status(TaskState.TASK_STATE_COMPLETED));
  }
}

/**
 * The test agent: `onReceived` hears each message's text and metadata first; `hello…` gets a
 * direct reply, anything else a task (submitted, working, then as {@link finishTask} says).
 */
export function testAgentExecutor(
  sdk: Sdk,
  AgentEvent: AgentEvents,
  onReceived: (text: string, metadata: Record<string, unknown> | undefined) => void,
): TestAgentExecutor {
  return {
    cancelTask: async () => undefined,
    async execute(context, bus) {
      const message = context.userMessage;
      const input = message.parts
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('');
      onReceived(input, message.metadata);
      if (input.startsWith('hello')) {
        bus.publish(AgentEvent.message(agentMessage(sdk, context.contextId, '', 'hi there')));
        bus.finished();
        return;
      }
      if (!context.task) bus.publish(submittedTask(sdk, AgentEvent, context));
      const events = taskEvents(sdk, AgentEvent, context);
      bus.publish(events.status(sdk.TaskState.TASK_STATE_WORKING, 'working on it'));
      await finishTask(sdk, input, events, bus);
      bus.finished();
    },
  };
}

/** The test agent's card: one JSON-RPC interface on `port`, streaming, one skill. */
export function testAgentCard(port: number): AgentCard {
  return {
    name: 'Test Travel Agent',
    description: 'Books trips for tests.',
    supportedInterfaces: [
      {
        url: `http://127.0.0.1:${port}/a2a/jsonrpc`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: '1.0',
      },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'book',
        name: 'Book trips',
        description: 'Books flights',
        tags: [],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
