// A tool that acts as the user, through ADK's confirmations: the first call asks with a
// `ksadk_credential` payload, the answer's payload carries the callback URL, the call runs once;
// the next call uses the stored token. A real OAuth 2.1 server on 127.0.0.1.
import {
  InMemoryRunner,
  LlmAgent,
  LogLevel,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  setLogLevel,
} from '@google/adk';
import type { FunctionCall } from '@google/genai';
import { createToolGateway, runWithInvocationContext } from '@ksadk/core';
import {
  createProfileTool,
  type OAuthTestServer,
  startOAuthTestServer,
  startProtectedMcpHost,
} from '@ksadk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedLlm } from './testing/scripted-llm.js';
import { toAdkTools } from './to-adk-tools.js';

let auth: OAuthTestServer;
beforeAll(async () => {
  setLogLevel(LogLevel.ERROR);
  auth = await startOAuthTestServer();
});
afterAll(() => auth.close());

type Event = {
  content?: {
    parts?: { functionCall?: FunctionCall; functionResponse?: { response?: unknown } }[];
  };
};
async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}
const partsOf = (events: Event[]) => events.flatMap((event) => event.content?.parts ?? []);

describe('ADK: credentials through confirmations', () => {
  it('asks for the sign-in, runs once with the callback in the payload, then reuses the token', async () => {
    const gateway = createToolGateway({
      env: {},
      credentials: { key: 'adk-test-credential-key-of-at-least-32' },
    });
    const model = new ScriptedLlm([
      { toolCalls: [{ name: 'my_profile', args: {} }] },
      'You are alice.',
      { toolCalls: [{ name: 'my_profile', args: {} }] },
      'Still alice.',
    ]);
    const agent = new LlmAgent({
      name: 'assistant',
      model,
      tools: toAdkTools([createProfileTool(auth)], { gateway }),
    });
    const runner = new InMemoryRunner({ agent, appName: 'test' });
    const { id: sessionId } = await runner.sessionService.createSession({
      appName: 'test',
      userId: 'alice',
    });
    const say = (parts: unknown[]) =>
      collect(
        runner.runAsync({
          userId: 'alice',
          sessionId,
          newMessage: { role: 'user', parts: parts as never },
        }),
      );
    const first = await say([{ text: 'who am I?' }]);
    const confirmation = partsOf(first).find(
      (part) => part.functionCall?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
    )?.functionCall;
    const payload = (
      confirmation?.args as {
        toolConfirmation?: { payload?: Record<string, { authorization_url?: string }> };
      }
    )?.toolConfirmation?.payload;
    expect(payload).toMatchObject({
      type: 'ksadk_credential',
      credential_request: { credential_id: 'service' },
    });
    const callbackUrl = await auth.signIn(
      String(payload?.['credential_request']?.authorization_url),
    );
    const second = await say([
      {
        functionResponse: {
          id: confirmation!.id,
          name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
          response: { confirmed: true, payload: { callbackUrl } },
        },
      },
    ]);
    expect(JSON.stringify(partsOf(second))).toContain('alice');
    const third = await say([{ text: 'again?' }]);
    expect(
      partsOf(third).some(
        (part) => part.functionCall?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
      ),
    ).toBe(false);
    expect(auth.grants.filter((grant) => grant === 'authorization_code')).toHaveLength(1);
  });
});

describe('ADK: an MCP server behind OAuth', () => {
  it('signs in through a confirmation; its tools then run as the user, refreshed, and ask again once revoked', {
    timeout: 60_000,
  }, async () => {
    const { gateway, files, ...servers } = await startProtectedMcpHost();
    const model = new ScriptedLlm([
      { toolCalls: [{ name: 'files_sign_in', args: {} }] },
      'Signed in.',
      { toolCalls: [{ name: 'whoami', args: {} }] },
      'Checked.',
      { toolCalls: [{ name: 'whoami', args: {} }] },
      'Checked again.',
      { toolCalls: [{ name: 'whoami', args: {} }] },
    ]);
    // The host builds the agent per turn, with the tools the current user sees.
    const sessionNow = async () => {
      const agent = new LlmAgent({
        name: 'assistant',
        model,
        tools: toAdkTools(await files.tools(), { gateway }),
      });
      const runner = new InMemoryRunner({ agent, appName: 'test' });
      const { id: sessionId } = await runner.sessionService.createSession({
        appName: 'test',
        userId: 'alice',
      });
      return (parts: unknown[]) =>
        collect(
          runner.runAsync({
            userId: 'alice',
            sessionId,
            newMessage: { role: 'user', parts: parts as never },
          }),
        );
    };
    const confirmationOf = (events: Event[]) =>
      partsOf(events).find(
        (part) => part.functionCall?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
      )?.functionCall;
    try {
      await runWithInvocationContext({ accountId: 'acct', userId: 'alice' }, async () => {
        const signIn = await sessionNow();
        const confirmation = confirmationOf(await signIn([{ text: 'sign me in' }]));
        const payload = (
          confirmation?.args as {
            toolConfirmation?: { payload?: Record<string, { authorization_url?: string }> };
          }
        )?.toolConfirmation?.payload;
        expect(payload).toMatchObject({
          type: 'ksadk_credential',
          credential_request: { credential_id: 'mcp.files' },
        });
        const callbackUrl = await servers.auth.signIn(
          String(payload?.['credential_request']?.authorization_url),
        );
        const signedIn = await signIn([
          {
            functionResponse: {
              id: confirmation!.id,
              name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
              response: { confirmed: true, payload: { callbackUrl } },
            },
          },
        ]);
        expect(JSON.stringify(partsOf(signedIn))).toContain('signed_in');

        const work = await sessionNow();
        expect(JSON.stringify(partsOf(await work([{ text: 'who?' }])))).toContain('user=alice');
        expect(servers.auth.grants).toEqual(['authorization_code']);

        servers.auth.expireAccessTokens();
        expect(JSON.stringify(partsOf(await work([{ text: 'now?' }])))).toContain('user=alice');
        expect(servers.auth.grants).toEqual(['authorization_code', 'refresh_token']);

        servers.auth.revokeAll();
        const again = confirmationOf(await work([{ text: 'again' }]));
        expect(JSON.stringify(again?.args)).toContain('ksadk_credential');
      });
    } finally {
      await servers.close();
    }
  });
});
