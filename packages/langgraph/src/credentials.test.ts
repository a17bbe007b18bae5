// A tool that acts as the user, through LangGraph's own human-in-the-loop: the first call
// interrupts with the sign-in, the host resumes with the callback URL, the call runs once; the
// next call uses the stored token. A real OAuth 2.1 server on 127.0.0.1.
import { createToolGateway, runWithInvocationContext } from '@ksadk/core';
import {
  createProfileTool,
  type OAuthTestServer,
  startOAuthTestServer,
  startProtectedMcpHost,
} from '@ksadk/core/testing';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toLangGraphTools } from './to-langgraph-tools.js';

let auth: OAuthTestServer;
beforeAll(async () => {
  auth = await startOAuthTestServer();
});
afterAll(() => auth.close());

const lastTool = (messages: BaseMessage[]) =>
  JSON.parse(
    String(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).at(-1)?.content),
  );

describe('LangGraph: credentials through interrupts', () => {
  it('interrupts for the sign-in, runs once with the callback, then reuses the token', async () => {
    const gateway = createToolGateway({
      env: {},
      credentials: { key: 'langgraph-test-credential-key-32-bytes' },
    });
    const model = fakeModel()
      .respondWithTools([{ name: 'my_profile', args: {}, id: 'call_1' }])
      .respond(new AIMessage('you are alice'))
      .respondWithTools([{ name: 'my_profile', args: {}, id: 'call_2' }])
      .respond(new AIMessage('still alice'));
    const agent = createAgent({
      model,
      tools: toLangGraphTools([createProfileTool(auth)], { gateway }),
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: 'cred-thread' } };
    await runWithInvocationContext({ accountId: 'acct', userId: 'alice' }, async () => {
      const paused = await agent.invoke(
        { messages: [{ role: 'user', content: 'who am I?' }] },
        config,
      );
      const [interrupt] =
        (paused as { __interrupt__?: { value: Record<string, { authorization_url?: string }> }[] })
          .__interrupt__ ?? [];
      expect(interrupt?.value).toMatchObject({
        type: 'ksadk_credential',
        credential_request: { credential_id: 'service', kind: 'oauth2' },
      });
      const callbackUrl = await auth.signIn(
        String(interrupt?.value['credential_request']?.authorization_url),
      );
      const done = await agent.invoke(new Command({ resume: { callbackUrl } }), config);
      expect(lastTool(done.messages)).toMatchObject({ ok: true, body: { user: 'alice' } });
      const again = await agent.invoke(
        { messages: [{ role: 'user', content: 'and now?' }] },
        config,
      );
      expect((again as { __interrupt__?: unknown[] }).__interrupt__ ?? []).toEqual([]);
      expect(lastTool(again.messages)).toMatchObject({ ok: true });
    });
    expect(auth.grants.filter((grant) => grant === 'authorization_code')).toHaveLength(1);
  });
});

describe('LangGraph: an MCP server behind OAuth', () => {
  it('signs in through an interrupt; its tools then run as the user, refreshed, and interrupt again once revoked', {
    timeout: 60_000,
  }, async () => {
    const { gateway, files, ...servers } = await startProtectedMcpHost();
    const model = fakeModel()
      .respondWithTools([{ name: 'files_sign_in', args: {}, id: 'call_1' }])
      .respond(new AIMessage('signed in'))
      .respondWithTools([{ name: 'whoami', args: {}, id: 'call_2' }])
      .respond(new AIMessage('checked'))
      .respondWithTools([{ name: 'whoami', args: {}, id: 'call_3' }])
      .respond(new AIMessage('checked again'))
      .respondWithTools([{ name: 'whoami', args: {}, id: 'call_4' }]);
    // The host builds the agent per turn, with the tools the current user sees.
    const agentNow = async () =>
      createAgent({
        model,
        tools: toLangGraphTools(await files.tools(), { gateway }),
        checkpointer,
      });
    const checkpointer = new MemorySaver();
    const interruptOf = (state: unknown) =>
      ((state as { __interrupt__?: { value: Record<string, { authorization_url?: string }> }[] })
        .__interrupt__ ?? [])[0];
    try {
      await runWithInvocationContext({ accountId: 'acct', userId: 'alice' }, async () => {
        const signIn = await agentNow();
        const config = { configurable: { thread_id: 'mcp-oauth-sign-in' } };
        const paused = await signIn.invoke(
          { messages: [{ role: 'user', content: 'sign in' }] },
          config,
        );
        expect(interruptOf(paused)?.value).toMatchObject({
          type: 'ksadk_credential',
          credential_request: { credential_id: 'mcp.files', kind: 'oauth2' },
        });
        const callbackUrl = await servers.auth.signIn(
          String(interruptOf(paused)?.value['credential_request']?.authorization_url),
        );
        const done = await signIn.invoke(new Command({ resume: { callbackUrl } }), config);
        expect(lastTool(done.messages)).toMatchObject({
          signed_in: true,
          tools: ['whoami', 'leak'],
        });

        const work = await agentNow();
        const thread = { configurable: { thread_id: 'mcp-oauth-work' } };
        const asked = await work.invoke({ messages: [{ role: 'user', content: 'who?' }] }, thread);
        expect(lastTool(asked.messages)).toMatchObject({ text: 'user=alice' });
        expect(servers.auth.grants).toEqual(['authorization_code']);

        servers.auth.expireAccessTokens();
        const renewed = await work.invoke(
          { messages: [{ role: 'user', content: 'now?' }] },
          thread,
        );
        expect(lastTool(renewed.messages)).toMatchObject({ text: 'user=alice' });
        expect(servers.auth.grants).toEqual(['authorization_code', 'refresh_token']);

        servers.auth.revokeAll();
        const revoked = await work.invoke(
          { messages: [{ role: 'user', content: 'again' }] },
          thread,
        );
        expect(interruptOf(revoked)?.value).toMatchObject({ type: 'ksadk_credential' });
      });
    } finally {
      await servers.close();
    }
  });
});
