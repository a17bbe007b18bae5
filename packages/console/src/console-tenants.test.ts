import { defineTool } from '@ksadk/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  alice,
  callAs,
  drawChart,
  getAs,
  headerConsole,
  mallory,
  pendingAs,
  postAs,
  testGateway,
  writeNote,
} from './test-fixtures/console-setup.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const { gateway, cleanup } = await testGateway();
  const console = headerConsole(gateway);
  cleanups.push(cleanup, () => console.close());
  return { gateway, console };
}

const body = async (response: Response) => (await response.json()) as Record<string, unknown>;

describe('every read and decision is the principal’s own', () => {
  it("another account sees none of the first's requests, and cannot read, approve or reject one", async () => {
    const { gateway, console } = await setup();
    const id = await pendingAs(gateway, alice);
    expect((await body(await getAs(console, 'acme:alice', 'approvals')))['items']).toHaveLength(1);
    expect((await body(await getAs(console, 'evil:mallory', 'approvals')))['items']).toEqual([]);
    expect((await body(await getAs(console, 'evil', 'approvals?status=all')))['items']).toEqual([]);
    // Another user of the same account is another person too.
    expect((await body(await getAs(console, 'acme:bob', 'approvals')))['items']).toEqual([]);
    for (const user of ['evil:mallory', 'acme:bob']) {
      expect((await getAs(console, user, `approvals/${id}`)).status).toBe(404);
      expect((await postAs(console, user, `approvals/${id}/approve`)).status).toBe(404);
      expect((await postAs(console, user, `approvals/${id}/reject`, { reason: 'x' })).status).toBe(
        404,
      );
    }
    expect((await gateway.approvalStatus(id, { principal: { admin: true } }))?.status).toBe(
      'pending',
    );
    // The account itself and an admin see it.
    expect((await body(await getAs(console, 'acme', 'approvals')))['items']).toHaveLength(1);
    expect((await body(await getAs(console, 'admin', 'approvals')))['items']).toHaveLength(1);
  });

  it("another account's calls, results and saved outputs are not found; only handles the call returned are served", async () => {
    const { gateway, console } = await setup();
    await callAs(gateway, alice, drawChart, { title: 'sales' }, 'chart-1');
    await callAs(gateway, mallory, drawChart, { title: 'mine' }, 'chart-2');
    const calls = (await body(await getAs(console, 'acme:alice', 'calls')))['items'] as {
      id: string;
    }[];
    expect(calls).toHaveLength(1);
    const callId = calls[0]!.id;
    const detail = await body(await getAs(console, 'acme:alice', `calls/${callId}`));
    const result = (detail['call'] as { result: Record<string, unknown> }).result;
    // Over the budget: the model got a preview, the whole result was saved under a handle.
    expect(result).toMatchObject({ ok: true, result_truncated: true });
    expect(String(result['result_preview'])).toContain('"title": "sales"');
    const text = JSON.stringify(result);
    const handles = [...text.matchAll(/tool-results:\/\/[^"\\]+/g)].map((match) => match[0]);
    expect(handles.length).toBeGreaterThanOrEqual(2); // the saved report and the image
    const image = handles.find((handle) => handle.endsWith('.png'))!;
    const report = handles.find((handle) => handle.endsWith('.json'))!;
    const png = await getAs(
      console,
      'acme:alice',
      `calls/${callId}/output?handle=${encodeURIComponent(image)}`,
    );
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await png.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const saved = await getAs(
      console,
      'acme:alice',
      `calls/${callId}/output?handle=${encodeURIComponent(report)}`,
    );
    expect(saved.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect((await saved.text()).length).toBeGreaterThan(100_000);

    // Mallory: not her call, not her output — whatever handle she names.
    expect((await getAs(console, 'evil:mallory', `calls/${callId}`)).status).toBe(404);
    expect(
      (
        await getAs(
          console,
          'evil:mallory',
          `calls/${callId}/output?handle=${encodeURIComponent(image)}`,
        )
      ).status,
    ).toBe(404);
    const malloryCall = (
      (await body(await getAs(console, 'evil:mallory', 'calls')))['items'] as { id: string }[]
    )[0]!.id;
    expect(
      (
        await getAs(
          console,
          'evil:mallory',
          `calls/${malloryCall}/output?handle=${encodeURIComponent(image)}`,
        )
      ).status,
    ).toBe(404);
    // Alice: only handles her call returned, never a path made up beside them.
    for (const handle of [
      'tool-results://../../etc/passwd',
      'tool-results://%2e%2e/x.png',
      `${image}/../x`,
      'file:///etc/passwd',
      image.replace('media-0', 'media-1'),
      'x'.repeat(5000),
    ]) {
      const response = await getAs(
        console,
        'acme:alice',
        `calls/${callId}/output?handle=${encodeURIComponent(handle)}`,
      );
      expect(response.status, handle).toBe(404);
    }
    // Bob, a user of Alice's own account, in her session: a call of his that returns her handle
    // reads his own folder, where it is not.
    const bob = { ...alice, userId: 'bob' };
    const echo = defineTool({
      name: 'echo_handle',
      description: 'Echoes a handle.',
      input: z.object({ handle: z.string() }),
      execute: ({ handle }) => ({ ok: true, handle }),
    });
    await callAs(gateway, bob, echo, { handle: image }, 'echo-1');
    const bobs = (
      (await body(await getAs(console, 'acme:bob', 'calls')))['items'] as { id: string }[]
    )[0]!.id;
    const echoed = await getAs(
      console,
      'acme:bob',
      `calls/${bobs}/output?handle=${encodeURIComponent(image)}`,
    );
    expect(echoed.status).toBe(404);
    for (const id of [
      '__proto__',
      'exec_0',
      `exec_${'0'.repeat(32)}`,
      '%E0%A4%A',
      'x'.repeat(10_000),
    ]) {
      const response = await getAs(console, 'acme:alice', `calls/${id}`);
      expect(response.status, id.slice(0, 20)).toBe(404);
    }
  });
});

describe('deciding', () => {
  it('approve, approve with edited arguments (checked against the tool), always for the session, reject with a reason', async () => {
    const { gateway, console } = await setup();
    const plain = await pendingAs(gateway, alice);
    const edited = await pendingAs(gateway, alice, { path: 'b.md', text: 'draft' });
    const standing = await pendingAs(gateway, alice, { path: 'c.md', text: 'x' });
    const rejected = await pendingAs(gateway, alice, { path: 'd.md', text: 'y' }, 'call-d');
    expect(
      (await body(await postAs(console, 'acme:alice', `approvals/${plain}/approve`)))['item'],
    ).toMatchObject({
      status: 'approved',
    });
    const bad = await postAs(console, 'acme:alice', `approvals/${edited}/approve`, {
      args: { path: 7 },
    });
    expect(bad.status).toBe(400);
    expect(await body(bad)).toMatchObject({ error: { code: 'invalid_arguments' } });
    for (const args of ['text', [1], null]) {
      const response = await postAs(console, 'acme:alice', `approvals/${edited}/approve`, { args });
      expect(response.status, JSON.stringify(args)).toBe(400);
    }
    const ok = await body(
      await postAs(console, 'acme:alice', `approvals/${edited}/approve`, {
        args: { path: 'b.md', text: 'final' },
      }),
    );
    expect(ok['item']).toMatchObject({
      status: 'approved',
      edited_arguments: { path: 'b.md', text: 'final' },
    });
    await postAs(console, 'acme:alice', `approvals/${standing}/approve`, { always: 'session' });
    const grants = (await body(await getAs(console, 'acme:alice', 'grants')))['items'] as {
      id: string;
    }[];
    expect(grants).toHaveLength(1);
    expect((await body(await getAs(console, 'evil:mallory', 'grants')))['items']).toEqual([]);
    expect((await postAs(console, 'evil:mallory', `grants/${grants[0]!.id}/revoke`)).status).toBe(
      404,
    );
    expect((await postAs(console, 'acme:alice', `grants/${grants[0]!.id}/revoke`)).status).toBe(
      200,
    );
    const no = await body(
      await postAs(console, 'acme:alice', `approvals/${rejected}/reject`, { reason: 'not today' }),
    );
    expect(no['item']).toMatchObject({ status: 'rejected', reason: 'not today' });
    // Decided once: deciding again is "not found", as for anything already decided.
    expect((await postAs(console, 'acme:alice', `approvals/${rejected}/approve`)).status).toBe(404);
    // What the call gets when it comes back: the rejection and its reason.
    const again = await callAs(gateway, alice, writeNote, { path: 'd.md', text: 'y' }, 'call-d');
    expect(again).toMatchObject({ ok: false, error_type: 'approval_rejected' });
    expect(JSON.stringify(again)).toContain('not today');
  });

  it('a body nested deep, or large where a small one is expected, is refused before it is parsed; a made-up id reads no body', async () => {
    const { gateway, console } = await setup();
    const id = await pendingAs(gateway, alice);
    const deep = `{"args":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const started = Date.now();
    const refused = await postAs(console, 'acme:alice', `approvals/${id}/approve`, deep);
    expect(refused.status).toBe(400);
    expect(await body(refused)).toMatchObject({
      error: { message: expect.stringMatching(/deeper than 64/) },
    });
    // Brackets inside strings are text, not nesting.
    const quoted = await postAs(console, 'acme:alice', `approvals/${id}/reject`, {
      reason: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
    });
    expect(quoted.status).toBe(200);
    const other = await pendingAs(gateway, alice);
    // A reason is small: 64 KiB at most, whatever the console's overall limit.
    expect(
      (await postAs(console, 'acme:alice', `approvals/${other}/reject`, { x: 'y'.repeat(100_000) }))
        .status,
    ).toBe(413);
    // A made-up request is not found before its body is read.
    expect(
      (await postAs(console, 'acme:alice', `approvals/appr_${'0'.repeat(32)}/approve`, deep))
        .status,
    ).toBe(404);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('credentials are a person’s own: an account-level principal or an admin cannot list, plant or revoke them', async () => {
    const { gateway, console } = await setup();
    for (const user of ['acme', 'admin']) {
      expect(await body(await getAs(console, user, 'credentials'))).toEqual({
        personal: false,
        credentials: [],
      });
      expect(await body(await getAs(console, user, 'credential-requests'))).toEqual({
        requests: [],
      });
      const planted = await postAs(console, user, `credential-requests/creq_${'a'.repeat(32)}`, {
        apiKey: 'mine',
      });
      expect(planted.status).toBe(403);
      expect((await postAs(console, user, 'credentials/tracker/revoke')).status).toBe(403);
    }
    expect(gateway).toBeDefined();
  });

  it('refuses bodies that are too large, not JSON, not an object or of another type; bad fields are 400', async () => {
    const { gateway } = await testGateway();
    const console = headerConsole(gateway, { maxBodyBytes: 1000 });
    cleanups.push(() => console.close());
    const id = await pendingAs(gateway, alice);
    const path = `approvals/${id}/reject`;
    expect((await postAs(console, 'acme:alice', path, { reason: 'x'.repeat(2000) })).status).toBe(
      413,
    );
    expect((await postAs(console, 'acme:alice', path, '{not json')).status).toBe(400);
    expect((await postAs(console, 'acme:alice', path, '[1,2]')).status).toBe(400);
    expect(
      (await postAs(console, 'acme:alice', path, 'reason=x', { 'content-type': 'text/plain' }))
        .status,
    ).toBe(415);
    expect((await postAs(console, 'acme:alice', path, { reason: 7 })).status).toBe(400);
    expect((await postAs(console, 'acme:alice', path, { always: 'forever' })).status).toBe(400);
    expect((await postAs(console, 'acme:alice', path, { reason: 'y'.repeat(501) })).status).toBe(
      400,
    );
    expect((await getAs(console, 'acme:alice', 'approvals?status=__proto__')).status).toBe(400);
    expect((await getAs(console, 'acme:alice', 'calls?outcome=constructor')).status).toBe(400);
    // Nothing was decided by any of it.
    expect((await gateway.approvalStatus(id, { principal: { admin: true } }))?.status).toBe(
      'pending',
    );
  });
});
