import { describe, expect, it } from 'vitest';
import { applyChunk, decide, type PageChat, send } from '../public/chat.js';
import { NodeChat } from './chat-client.js';
import { startChatServer } from './server.js';

describe('AI SDK chat example', () => {
  it("the SDK's own chat client: the save waits for Approve, then runs once", async () => {
    const server = await startChatServer();
    try {
      const chat = new NodeChat(`${server.url}/api/chat`);
      await chat.sendMessage({ text: 'save groceries: milk, eggs' });
      await chat.idle();
      const [pending] = chat.pendingApprovals();
      expect(pending).toMatchObject({ tool: 'save_note', input: { title: 'groceries' } });
      expect(server.notes.size).toBe(0);
      await chat.addToolApprovalResponse({ id: pending!.approvalId, approved: true });
      await chat.idle();
      expect(server.notes.get('groceries')).toBe('milk, eggs');
      expect(chat.lastText()).toContain('"saved":"groceries"');
      // Sending the same conversation again (a retried request) saves nothing twice.
      server.notes.clear();
      await chat.sendMessage();
      await chat.idle();
      expect(server.notes.size).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('Deny saves nothing, and is final even when the model answers with text alone', async () => {
    const server = await startChatServer();
    try {
      const chat = new NodeChat(`${server.url}/api/chat`, {}, 'chat-final');
      await chat.sendMessage({ text: 'save secret: x' });
      await chat.idle();
      const [pending] = chat.pendingApprovals();
      await chat.addToolApprovalResponse({ id: pending!.approvalId, approved: false });
      await chat.idle();
      const { items } = await server.gateway.listApprovalRequests({
        principal: { admin: true },
        status: 'all',
      });
      expect(items.map((item) => item.status)).toEqual(['rejected']);
      expect(server.notes.size).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('Deny saves nothing, and the request is closed once the conversation goes on', async () => {
    const server = await startChatServer();
    try {
      const chat = new NodeChat(`${server.url}/api/chat`, {}, 'chat-deny');
      await chat.sendMessage({ text: 'save secret: x' });
      await chat.idle();
      const [pending] = chat.pendingApprovals();
      await chat.addToolApprovalResponse({ id: pending!.approvalId, approved: false });
      await chat.idle();
      await chat.sendMessage({ text: 'list my notes' });
      await chat.idle();
      expect(server.notes.size).toBe(0);
      const { items } = await server.gateway.listApprovalRequests({
        principal: { admin: true },
        status: 'all',
      });
      expect(items.map((item) => item.status)).toEqual(['rejected']);
    } finally {
      await server.close();
    }
  });

  it("the page's own script speaks the same stream; another user's replay runs nothing", async () => {
    const server = await startChatServer();
    try {
      const chat: PageChat = {
        api: `${server.url}/api/chat`,
        headers: { 'x-demo-user': 'alice' },
        id: 'page-chat',
        messages: [
          {
            id: 'u1',
            role: 'user',
            parts: [{ type: 'text', text: 'save plan: <script>x</script>' }],
          },
        ],
      };
      await send(chat);
      const part = chat.messages[1]?.parts.find(
        (p: { state?: string }) => p.state === 'approval-requested',
      ) as { approval: { id: string } } | undefined;
      expect(part).toBeDefined();
      // Mallory sends alice's conversation with an approval of her own: nothing runs.
      const stolen = structuredClone(chat);
      stolen.headers = { 'x-demo-user': 'mallory' };
      await decide(stolen, part!.approval!.id, true);
      expect(server.notes.size).toBe(0);
      await decide(chat, part!.approval!.id, true);
      expect(server.notes.get('plan')).toBe('<script>x</script>');
    } finally {
      await server.close();
    }
  });

  it('refuses what is not a chat request', async () => {
    const server = await startChatServer();
    try {
      const post = (body: string) =>
        fetch(`${server.url}/api/chat`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        });
      expect((await post('{')).status).toBe(400);
      expect((await post('{"messages":3}')).status).toBe(400);
      expect(
        (await post(JSON.stringify({ messages: [{ role: 'user', parts: 'x' }] }))).status,
      ).toBe(400);
      expect((await post(`"${'x'.repeat(2 * 1024 * 1024)}"`)).status).toBe(413);
      expect((await fetch(`${server.url}/nope`)).status).toBe(404);
      const page = await fetch(server.url);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(applyChunk({ parts: [] }, { type: 'unknown' })).toEqual({ parts: [] });
    } finally {
      await server.close();
    }
  });
});
