import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Metadata and texts the test agent received. */
export interface A2ATestServer {
  readonly url: string;
  readonly received: {
    text: string;
    metadata: Record<string, unknown> | undefined;
    authorization: string | undefined;
  }[];
  close(): Promise<void>;
}

/**
 * A real A2A agent (the official SDK's `DefaultRequestHandler` over JSON-RPC, with an express
 * app) on 127.0.0.1 for tests. What it does depends on the text it receives:
 * `fail…` fails, `ask…` needs input, `login…` needs auth, `big:<n>` answers n characters,
 * `hello…` replies with a direct message, `stream…` sends three artifact chunks; anything else
 * completes with an artifact echoing the text.
 */
export async function startA2ATestServer(): Promise<A2ATestServer> {
  const [{ default: express }, sdk, server, serverExpress] = await Promise.all([
    import('express'),
    import('@a2a-js/sdk'),
    import('@a2a-js/sdk/server'),
    import('@a2a-js/sdk/server/express'),
  ]);
  const { TaskState, Role } = sdk;
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = server;
  const received: A2ATestServer['received'] = [];
  let authorization: string | undefined;
  const text = (value: string) => ({
    content: { $case: 'text' as const, value },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  });

  const executor = {
    cancelTask: async () => undefined,
    async execute(
      context: {
        userMessage: import('@a2a-js/sdk').Message;
        taskId: string;
        contextId: string;
        task?: unknown;
      },
      bus: { publish(event: unknown): void; finished(): void },
    ) {
      const message = context.userMessage;
      const input = message.parts
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('');
      received.push({ text: input, metadata: message.metadata, authorization });
      const { taskId, contextId } = context;
      const status = (state: number, reply?: string) =>
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            timestamp: new Date().toISOString(),
            message: reply
              ? {
                  messageId: randomUUID(),
                  contextId,
                  taskId,
                  role: Role.ROLE_AGENT,
                  parts: [text(reply)],
                  metadata: undefined,
                  extensions: [],
                  referenceTaskIds: [],
                }
              : undefined,
          },
          metadata: undefined,
        });
      const artifact = (value: string) =>
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: randomUUID(),
            name: 'result',
            description: '',
            parts: [text(value)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        });
      if (input.startsWith('hello')) {
        bus.publish(
          AgentEvent.message({
            messageId: randomUUID(),
            contextId,
            taskId: '',
            role: Role.ROLE_AGENT,
            parts: [text('hi there')],
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
          }),
        );
        bus.finished();
        return;
      }
      if (!context.task) {
        bus.publish(
          AgentEvent.task({
            id: taskId,
            contextId,
            status: {
              state: TaskState.TASK_STATE_SUBMITTED,
              timestamp: new Date().toISOString(),
              message: undefined,
            },
            artifacts: [],
            history: [message],
            metadata: undefined,
          }),
        );
      }
      bus.publish(status(TaskState.TASK_STATE_WORKING, 'working on it'));
      if (input.startsWith('fail'))
        bus.publish(status(TaskState.TASK_STATE_FAILED, 'the remote agent could not do it'));
      else if (input.startsWith('ask'))
        bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which date?'));
      else if (input.startsWith('login'))
        bus.publish(status(TaskState.TASK_STATE_AUTH_REQUIRED, 'Please sign in.'));
      else if (input.startsWith('big:')) {
        bus.publish(artifact('x'.repeat(Number(input.slice(4)))));
        bus.publish(status(TaskState.TASK_STATE_COMPLETED));
      } else if (input.startsWith('stream')) {
        for (const chunk of ['one ', 'two ', 'three']) {
          bus.publish(artifact(chunk));
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        bus.publish(status(TaskState.TASK_STATE_COMPLETED));
      } else {
        bus.publish(artifact(`done: ${input}`));
        bus.publish(status(TaskState.TASK_STATE_COMPLETED));
      }
      bus.finished();
    },
  };

  // Listen first, so the card can name the real port; then mount the A2A routes.
  const app = express();
  const http: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const port = (http.address() as AddressInfo).port;
  const card = {
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
  const handler = new DefaultRequestHandler(
    card as never,
    new InMemoryTaskStore(),
    executor as never,
  );
  app.use((req, _res, next) => {
    if (req.method === 'POST') authorization = req.headers.authorization;
    next();
  });
  app.use(
    '/.well-known/agent-card.json',
    serverExpress.agentCardHandler({
      agentCardProvider: { getAgentCard: async () => card } as never,
    }),
  );
  app.use(
    '/a2a/jsonrpc',
    serverExpress.jsonRpcHandler({
      requestHandler: handler,
      userBuilder: serverExpress.UserBuilder.noAuthentication,
    }),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
