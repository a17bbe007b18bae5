// The scenario every adapter runs against the MCP project's reference server,
// `@modelcontextprotocol/server-everything` (pinned in each package): which tools it lists, the
// arguments that make each do its job offline, and the human and the model on the client side.
import { createRequire } from 'node:module';

// No package imports on purpose: it sits outside every package (nothing resolves from here), and
// each test passes in what it needs.

/** Every tool the pinned reference server lists, with arguments that make it do its job. */
export const SERVER_EVERYTHING_CALLS: Readonly<Record<string, Record<string, unknown>>> = {
  echo: { message: 'hello' },
  'get-annotated-message': { messageType: 'success', includeImage: true },
  'get-env': {},
  'get-resource-links': { count: 2 },
  'get-resource-reference': { resourceType: 'Text', resourceId: 1 },
  'get-structured-content': { location: 'New York' },
  'get-sum': { a: 2, b: 3 },
  'get-tiny-image': {},
  'gzip-file-as-resource': {
    name: 'hello.gz',
    data: 'data:text/plain;base64,aGVsbG8=',
    outputType: 'resource',
  },
  'toggle-simulated-logging': {},
  'toggle-subscriber-updates': {},
  'trigger-long-running-operation': { duration: 1, steps: 2 },
  'get-roots-list': {},
  'trigger-elicitation-request': {},
  'trigger-sampling-request': { prompt: 'Say hi', maxTokens: 50 },
};

/** One scripted model turn per tool, in order, then a final answer. */
export function callEveryTool(): (
  | { toolCalls: { name: string; args: Record<string, unknown> }[] }
  | string
)[] {
  return [
    ...Object.entries(SERVER_EVERYTHING_CALLS).map(([name, args]) => ({
      toolCalls: [{ name, args }],
    })),
    'All done.',
  ];
}

/** The human: allows the (untrusted) sampling request, fills in the elicitation form. */
export function answerAsHuman(request: {
  readonly requested_schema: Readonly<Record<string, unknown>>;
}) {
  const schema = request.requested_schema as { properties?: Record<string, unknown> };
  return 'allow' in (schema.properties ?? {})
    ? { action: 'accept' as const, content: { allow: true } }
    : { action: 'accept' as const, content: { name: 'Ada' } };
}

/**
 * The client capabilities the scenario enables: elicitation, a scripted sampler (recording each
 * request into `samples`, capped at 20 tokens; the server asks for 50) and roots.
 */
export function everyCapability<S>(samples: S[]) {
  return {
    elicitation: true,
    sampler: async (request: S) => {
      samples.push(request);
      return {
        role: 'assistant' as const,
        content: { type: 'text' as const, text: 'Hi!' },
        model: 'scripted',
      };
    },
    samplingMaxTokens: 20,
    roots: async () => [{ uri: 'file:///workspace/acme', name: 'workspace' }],
  };
}

/** `ok: false` anywhere in a result as the model saw it (a JSON string, or an object). */
export function showsFailure(seen: unknown): boolean {
  return /\\*"ok\\*":false/.test(JSON.stringify(seen));
}

/** The pinned reference server's entry script, resolved from the calling test's package. */
export function serverEverythingScript(fromUrl: string): string {
  return createRequire(fromUrl).resolve('@modelcontextprotocol/server-everything/dist/index.js');
}

/** The reference server as an MCP entry: a stdio child of this Node, or the HTTP server at `url`. */
export function serverEverythingEntry(transport: 'stdio' | 'http', script: string, url: string) {
  return transport === 'stdio'
    ? { name: 'everything', command: process.execPath, args: [script] }
    : { name: 'everything', url };
}
