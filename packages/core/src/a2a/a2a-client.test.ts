import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWithInvocationContext } from '../context/invocation-context.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { isApprovalRequired } from '../gateway/results.js';
import { type A2ATestServer, startA2ATestServer } from '../testing/a2a-test-server.js';
import { createA2AAgentTool } from './a2a-agent-tool.js';
import { type A2AStreamEvent, createA2AClient } from './a2a-client.js';

let server: A2ATestServer;
beforeAll(async () => {
  server = await startA2ATestServer();
});
afterAll(() => server.close());

describe('A2A client against a real @a2a-js/sdk server', () => {
  it('reads the card', async () => {
    const client = createA2AClient({ url: server.url });
    expect(await client.getCard()).toEqual({
      name: 'Test Travel Agent',
      description: 'Books trips for tests.',
      skills: [{ id: 'book', name: 'Book trips', description: 'Books flights' }],
      streaming: true,
    });
  });

  it('completed, failed, input-required and auth-required tasks, and a direct reply, are structured results', async () => {
    const client = createA2AClient({ url: server.url });
    expect(await client.send('book Oslo')).toMatchObject({
      ok: true,
      state: 'completed',
      output: 'done: book Oslo',
      task_id: expect.any(String),
      context_id: expect.any(String),
    });
    expect(await client.send('fail please')).toMatchObject({
      ok: false,
      state: 'failed',
      error_type: 'a2a_task_failed',
      output: 'the remote agent could not do it',
    });
    const asking = await client.send('ask me');
    expect(asking).toMatchObject({
      ok: false,
      state: 'input-required',
      needs: 'input',
      output: 'Which date?',
    });
    expect(await client.send('login first')).toMatchObject({
      ok: false,
      state: 'auth-required',
      needs: 'auth',
    });
    expect(await client.send('hello')).toMatchObject({
      ok: true,
      state: 'completed',
      output: 'hi there',
    });
  });

  it('streams text and status events, then returns the final result', async () => {
    const client = createA2AClient({ url: server.url });
    const events: A2AStreamEvent[] = [];
    const stream = client.stream('stream it');
    let step = await stream.next();
    while (!step.done) {
      events.push(step.value);
      step = await stream.next();
    }
    expect(events.filter((e) => e.type === 'text').map((e) => e.text)).toEqual([
      'one ',
      'two ',
      'three',
    ]);
    expect(events.some((e) => e.type === 'status' && e.state === 'working')).toBe(true);
    expect(step.value).toMatchObject({ ok: true, state: 'completed', output: 'one \ntwo \nthree' });
  });

  it('refuses a too-large request and cuts off a too-large reply', async () => {
    const client = createA2AClient({
      url: server.url,
      maxRequestBytes: 100,
      maxResponseBytes: 64 * 1024,
    });
    expect(await client.send('y'.repeat(101))).toMatchObject({
      ok: false,
      error_type: 'request_too_large',
    });
    expect(await client.send('big:10')).toMatchObject({ ok: true, output: 'x'.repeat(10) });
    expect(await client.send('big:200000')).toMatchObject({
      ok: false,
      error_type: 'too_large',
    });
  });

  it('sends the invocation context as metadata and the configured headers', async () => {
    const client = createA2AClient({
      url: server.url,
      headers: { Authorization: 'Bearer a2a-token' },
    });
    await runWithInvocationContext(
      { invocationId: 'inv-7', accountId: 'acme', sessionId: 's-3' },
      () => client.send('book Rome'),
    );
    const last = server.received.at(-1);
    expect(last?.metadata).toMatchObject({
      invocation_id: 'inv-7',
      account_id: 'acme',
      session_id: 's-3',
    });
    expect(last?.authorization).toBe('Bearer a2a-token');
  });

  it('an unreachable agent is a structured error', async () => {
    const client = createA2AClient({ url: 'http://127.0.0.1:9' });
    expect(await client.send('x')).toMatchObject({ ok: false, error_type: 'a2a_error' });
  });
});

describe('a remote agent as a tool', () => {
  it('is high risk by default, described from its card, and returns the result fields', async () => {
    const tool = await createA2AAgentTool({ client: createA2AClient({ url: server.url }) });
    expect(tool.name).toBe('ask_test_travel_agent');
    expect(tool.description).toContain('Books trips for tests.');
    expect(tool.policy.riskLevel).toBe('high');
    expect(
      isApprovalRequired(
        await createToolGateway({ env: {} }).invoke(tool, { request: 'book Paris' }),
      ),
    ).toBe(true);
    const result = await createToolGateway({ approvalMode: 'full', env: {} }).invoke(tool, {
      request: 'book Paris',
    });
    expect(result).toMatchObject({
      ok: true,
      output: 'done: book Paris',
      state: 'completed',
      task_id: expect.any(String),
      context_id: expect.any(String),
    });
  });
});
