// A tool that acts as the user, through the OpenAI loop's pending calls: the first call pends
// with kind 'credential' (also in the saved state), the host resumes with the callback URL, the
// call runs once. A real OAuth 2.1 server on 127.0.0.1.
import { createToolGateway, runWithInvocationContext } from '@ksadk/core';
import {
  createProfileTool,
  type OAuthTestServer,
  startOAuthTestServer,
  startProtectedMcpHost,
} from '@ksadk/core/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolLoop } from './create-tool-loop.js';
import { createScriptedOpenAIFetch } from './testing/scripted-openai-fetch.js';

let auth: OAuthTestServer;
beforeAll(async () => {
  auth = await startOAuthTestServer();
});
afterAll(() => auth.close());

for (const api of ['chat', 'responses'] as const) {
  describe(`OpenAI tool loop: credentials as pending calls (${api})`, () => {
    it('pends for the sign-in, resumes from saved state with the callback, runs once', async () => {
      const gateway = createToolGateway({
        env: {},
        credentials: { key: 'openai-test-credential-key-of-32-bytes' },
      });
      const scripted = createScriptedOpenAIFetch([
        { toolCalls: [{ name: 'my_profile', args: {} }] },
        'You are alice.',
      ]);
      const client = new OpenAI({
        apiKey: 'offline',
        baseURL: 'http://scripted.invalid/v1',
        fetch: scripted.fetch,
        maxRetries: 0,
      });
      const loop = createToolLoop(client, {
        model: 'm',
        api,
        gateway,
        tools: [createProfileTool(auth)],
      });
      await runWithInvocationContext(
        { accountId: 'acct', userId: `alice-${api}`, sessionId: 's' },
        async () => {
          const paused = await loop.run('who am I?');
          if (paused.status !== 'needs_approval')
            throw new Error(`expected a pause, got ${paused.status}`);
          const [pending] = paused.pending;
          if (pending?.kind !== 'credential') throw new Error('expected a credential pending call');
          expect(pending.credentialRequest).toMatchObject({
            credential_id: 'service',
            kind: 'oauth2',
          });
          const saved = JSON.parse(JSON.stringify(paused));
          expect(saved.calls[0].credentialRequest.id).toBe(pending.credentialRequest.id);
          const callbackUrl = await auth.signIn(pending.credentialRequest.authorization_url!);
          const done = await loop.resume(saved, { [pending.callId]: { callbackUrl } });
          expect(done).toMatchObject({ status: 'completed', output: 'You are alice.' });
          expect(JSON.stringify(scripted.requests.at(-1))).toContain('"user\\":\\"alice');
        },
      );
    });
  });
}

describe('OpenAI tool loop: an MCP server behind OAuth', () => {
  it('signs in through a pending call; its tools then run as the user, refreshed, and ask again once revoked', {
    timeout: 60_000,
  }, async () => {
    const { gateway, files, ...servers } = await startProtectedMcpHost();
    const scripted = createScriptedOpenAIFetch([
      { toolCalls: [{ name: 'files_sign_in', args: {} }] },
      'Signed in.',
      { toolCalls: [{ name: 'whoami', args: {} }] },
      'Checked.',
      { toolCalls: [{ name: 'whoami', args: {} }] },
      'Checked again.',
      { toolCalls: [{ name: 'whoami', args: {} }] },
    ]);
    const client = new OpenAI({
      apiKey: 'offline',
      baseURL: 'http://scripted.invalid/v1',
      fetch: scripted.fetch,
      maxRetries: 0,
    });
    // The host builds the loop per turn, with the tools the current user sees.
    const loopNow = async () =>
      createToolLoop(client, { model: 'm', gateway, tools: await files.tools() });
    const lastToolOutput = () => JSON.stringify(scripted.requests.at(-1));
    try {
      await runWithInvocationContext(
        { accountId: 'acct', userId: 'alice', sessionId: 's' },
        async () => {
          const signIn = await loopNow();
          const paused = await signIn.run('sign me in to files');
          if (paused.status !== 'needs_approval')
            throw new Error(`expected a pause, got ${paused.status}`);
          const [pending] = paused.pending;
          if (pending?.kind !== 'credential') throw new Error('expected a credential pending call');
          expect(
            new URL(pending.credentialRequest.authorization_url!).searchParams.get('resource'),
          ).toBe(servers.mcp.url);
          const callbackUrl = await servers.auth.signIn(
            pending.credentialRequest.authorization_url!,
          );
          const saved = JSON.parse(JSON.stringify(paused));
          expect(await signIn.resume(saved, { [pending.callId]: { callbackUrl } })).toMatchObject({
            status: 'completed',
            output: 'Signed in.',
          });
          expect(lastToolOutput()).toContain('signed_in');

          const work = await loopNow();
          expect(await work.run('who am I?')).toMatchObject({ status: 'completed' });
          expect(lastToolOutput()).toContain('user=alice');
          expect(servers.auth.grants).toEqual(['authorization_code']);

          servers.auth.expireAccessTokens();
          expect(await work.run('and now?')).toMatchObject({ status: 'completed' });
          expect(lastToolOutput()).toContain('user=alice');
          expect(servers.auth.grants).toEqual(['authorization_code', 'refresh_token']);

          servers.auth.revokeAll();
          const asked = await work.run('once more');
          expect(asked.status).toBe('needs_approval');
          if (asked.status === 'needs_approval') expect(asked.pending[0]?.kind).toBe('credential');
        },
      );
    } finally {
      await servers.close();
    }
  });
});
