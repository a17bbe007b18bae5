import { mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolGateway, defineTool } from '@ksadk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKsadkMcpServer } from './index.js';

import {
  blockingTool,
  connect,
  echoTool,
  env,
  type Json,
  loopLag,
  parsed,
  payTool,
  pendingOf,
  rawPeer,
  sleep,
  until,
  within,
} from './test-fixtures/attack-kit.js';

// Hostile tests of tools/call and resources/read: hostile names and arguments, the per-connection
// call limit, tool-results:// handles, and secrets in what tools return.

let persistDir: string;
beforeAll(async () => {
  persistDir = await mkdtemp(path.join(tmpdir(), 'ksadk-mcp-attacks-'));
});
afterAll(() => rm(persistDir, { recursive: true, force: true }));

describe('tools/call with hostile names and arguments', () => {
  /** A JSON-RPC error, or the structured `{ ok: false }` result: either way, no crash. */
  const refusal = (answer: Json): { rpc: number } | { isError?: boolean; body: Json } => {
    if (answer['error']) return { rpc: (answer['error'] as { code: number }).code };
    const result = answer['result'] as { isError?: boolean };
    return { isError: result.isError, body: parsed(result) };
  };

  it('odd tool names answer unknown_tool, bounded, without touching prototypes', async () => {
    const gateway = createToolGateway({ env });
    const server = createKsadkMcpServer({ tools: [echoTool], gateway });
    const peer = await rawPeer(server);
    const names = [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '',
      ' echo',
      'echo\u0000',
      'ECHO',
      'n'.repeat(1024 * 1024),
      '\u202eohce',
    ];
    for (const name of names) {
      const { value: answer, lag } = await loopLag(() =>
        within(5000, peer.request('tools/call', { name, arguments: {} }), name.slice(0, 20)),
      );
      const result = answer['result'] as { isError?: boolean; content: { text: string }[] };
      expect(result?.isError, name.slice(0, 20)).toBe(true);
      expect(parsed(result)).toMatchObject({ ok: false, error_type: 'unknown_tool' });
      expect(result.content[0]!.text.length).toBeLessThan(1000);
      expect(lag).toBeLessThan(1000);
    }
    for (const name of [null, 42, { toString: 'echo' }, ['echo']]) {
      const answer = await within(5000, peer.request('tools/call', { name, arguments: {} }));
      // The SDK's own schema refuses it before the handler (as -32603 with the zod issues, where
      // the spec would say -32602): a protocol error, bounded, and the connection lives on.
      expect([-32602, -32603]).toContain((answer['error'] as { code?: number })?.code);
      expect(JSON.stringify(answer).length).toBeLessThan(2000);
    }
    const ok = await peer.request('tools/call', { name: 'echo', arguments: { a: 1 } });
    expect(parsed(ok['result'])).toMatchObject({ ok: true });
  }, 30_000);

  it('arguments that are not an object, too deep, too big or carry prototype keys are refused', async () => {
    const seen: unknown[] = [];
    const gateway = createToolGateway({ env });
    const record = defineTool({
      name: 'record',
      description: 'Records what it got.',
      input: z.object({ a: z.unknown() }).passthrough(),
      execute: (args) => {
        seen.push(args);
        return { keys: Object.keys(args) };
      },
    });
    const server = createKsadkMcpServer({ tools: [record], gateway });
    const peer = await rawPeer(server);
    for (const args of [[], [1, 2], null, 'a string', 42, true]) {
      const answer = await within(
        5000,
        peer.request('tools/call', { name: 'record', arguments: args }),
        JSON.stringify(args),
      );
      const refused = refusal(answer);
      // The SDK refuses a non-object before the handler; either refusal is fine, a run is not.
      expect(
        'rpc' in refused ? [-32602, -32603].includes(refused.rpc) : refused.isError === true,
        JSON.stringify(refused),
      ).toBe(true);
    }
    let deep: unknown = 'bottom';
    for (let level = 0; level < 10_000; level += 1) deep = { d: deep };
    let deepArray: unknown = [];
    for (let level = 0; level < 10_000; level += 1) deepArray = [deepArray];
    const hostile: [string, Json][] = [
      ['deep object', { a: deep }],
      ['deep array', { a: deepArray }],
      ['nested __proto__', JSON.parse('{"a":{"b":[{"__proto__":{"polluted":true}}]}}') as Json],
      ['constructor key', { a: { constructor: { prototype: { polluted: true } } } }],
      ['prototype key', { a: 1, prototype: { polluted: true } }],
      ['5 MB string', { a: 'x'.repeat(5 * 1024 * 1024) }],
      ['non-finite number', { a: Number.NaN }],
    ];
    for (const [label, args] of hostile) {
      const { value: answer, lag } = await loopLag(() =>
        within(5000, peer.request('tools/call', { name: 'record', arguments: args }), label),
      );
      const refused = refusal(answer);
      expect(refused, label).toMatchObject({
        isError: true,
        body: { ok: false, error_type: 'invalid_arguments' },
      });
      expect(JSON.stringify(answer).length, label).toBeLessThan(10_000);
      expect(lag, label).toBeLessThan(1500);
    }
    expect(seen).toHaveLength(0);
    // A top-level `__proto__` is dropped by the SDK's own schema (zod's record skips it): the call
    // runs, and the tool gets the plain object without it or anything inherited from it.
    const top = await peer.request('tools/call', {
      name: 'record',
      arguments: JSON.parse('{"a":1,"__proto__":{"polluted":true}}'),
    });
    expect(parsed(top['result'])).toMatchObject({ ok: true, keys: ['a'] });
    const got = seen.pop() as Json;
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(got['polluted']).toBeUndefined();
    expect(({} as Json)['polluted']).toBeUndefined();
    const ok = await peer.request('tools/call', { name: 'record', arguments: { a: 1 } });
    expect(parsed(ok['result'])).toMatchObject({ ok: true, keys: ['a'] });
  }, 60_000);
});

describe('maxConcurrentCalls', () => {
  const errorTypeOf = (result: unknown) => parsed(result)['error_type'];

  it('more calls than allowed answer service_unavailable; the count recovers after calls finish', async () => {
    const gateway = createToolGateway({ env });
    const { tool, state, reset } = blockingTool();
    const { client } = await connect({ tools: [tool], gateway, maxConcurrentCalls: 2 });
    const calls = [0, 1, 2, 3, 4].map((n) => client.callTool({ name: 'block', arguments: { n } }));
    await until(() => state.started === 2);
    await sleep(50);
    state.release();
    const results = await within(10_000, Promise.all(calls));
    const busy = results.filter((result) => errorTypeOf(result) === 'service_unavailable');
    expect(busy).toHaveLength(3);
    expect(busy[0]!.isError).toBe(true);
    expect(results.filter((result) => parsed(result)['ok'] === true)).toHaveLength(2);
    expect(state.peak).toBe(2);
    // Freed: two at once run again.
    reset();
    const again = [5, 6].map((n) => client.callTool({ name: 'block', arguments: { n } }));
    await until(() => state.started === 4);
    state.release();
    for (const result of await within(10_000, Promise.all(again)))
      expect(parsed(result)['ok']).toBe(true);
  }, 30_000);

  it('calls that throw, fail validation, or are refused do not leak a slot', async () => {
    const gateway = createToolGateway({ env });
    const boom = defineTool({
      name: 'boom',
      description: 'Throws.',
      input: z.object({}),
      execute: () => {
        throw new Error('kaput');
      },
    });
    const reject = defineTool({
      name: 'reject_async',
      description: 'Rejects.',
      input: z.object({}),
      execute: () => Promise.reject(Object.assign(new Error('nope'), { code: 'EBAD' })),
    });
    const weird = defineTool({
      name: 'throw_weird',
      description: 'Throws a non-error.',
      input: z.object({}),
      execute: () => {
        // A thrown non-error whose every conversion throws.
        throw {
          toString: () => {
            throw new Error('no string');
          },
          toJSON: () => {
            throw new Error('no JSON');
          },
        };
      },
    });
    const { tool, state } = blockingTool();
    const { client } = await connect({
      tools: [boom, reject, weird, tool],
      gateway,
      maxConcurrentCalls: 1,
    });
    for (let round = 0; round < 3; round += 1) {
      for (const name of ['boom', 'reject_async', 'throw_weird']) {
        const result = await within(5000, client.callTool({ name, arguments: {} }), name);
        expect(result.isError, name).toBe(true);
        expect(parsed(result)['ok']).toBe(false);
      }
      const invalid = await client.callTool({ name: 'block', arguments: { n: 'x' } });
      expect(errorTypeOf(invalid)).toBe('invalid_arguments');
    }
    const blocked = client.callTool({ name: 'block', arguments: { n: 1 } });
    await until(() => state.started === 1);
    state.release();
    expect(parsed(await within(5000, blocked))).toMatchObject({ ok: true, n: 1 });
  }, 30_000);

  it('cancelled calls give their slot back', async () => {
    const gateway = createToolGateway({ env });
    const { tool, state, reset } = blockingTool();
    const { client } = await connect({ tools: [tool], gateway, maxConcurrentCalls: 2 });
    for (let round = 0; round < 3; round += 1) {
      const aborts = [new AbortController(), new AbortController()];
      const calls = aborts.map((abort, n) =>
        client
          .callTool({ name: 'block', arguments: { n } }, undefined, { signal: abort.signal })
          .catch((error: unknown) => error),
      );
      await until(() => state.active === 2);
      for (const abort of aborts) abort.abort();
      for (const outcome of await within(5000, Promise.all(calls)))
        expect(outcome).toBeInstanceOf(Error);
      await until(() => state.active === 0);
    }
    // The slots are free: two new calls both run.
    reset();
    const before = state.started;
    const calls = [7, 8].map((n) => client.callTool({ name: 'block', arguments: { n } }));
    await until(() => state.started === before + 2);
    state.release();
    for (const result of await within(5000, Promise.all(calls)))
      expect(parsed(result)).toMatchObject({ ok: true });
  }, 30_000);

  it('a cancelled call whose tool ignores its signal keeps its slot until the tool stops', async () => {
    const gateway = createToolGateway({ env });
    const { tool, state } = blockingTool({ ignoreAbort: true });
    const { client } = await connect({ tools: [tool], gateway, maxConcurrentCalls: 1 });
    for (let n = 0; n < 5; n += 1) {
      const abort = new AbortController();
      const call = client
        .callTool({ name: 'block', arguments: { n } }, undefined, { signal: abort.signal })
        .catch((error: unknown) => error);
      await sleep(30);
      abort.abort();
      await call;
      await sleep(30);
    }
    // The gateway answers a cancelled call at once while the tool goes on: its slot must stay
    // taken until the tool ends, or cancel-and-call-again would run any number at once.
    const running = state.active;
    state.release();
    await until(() => state.active === 0);
    expect(
      running,
      `${running} executions ran at once with maxConcurrentCalls 1`,
    ).toBeLessThanOrEqual(1);
  }, 30_000);

  it('calls waiting for approval hold their slots; a cancel frees them', async () => {
    const runs: Json[] = [];
    const gateway = createToolGateway({ env });
    const { client } = await connect({
      tools: [payTool(runs), echoTool],
      gateway,
      principal: { accountId: 'slots' },
      maxConcurrentCalls: 2,
    });
    const aborts = [new AbortController(), new AbortController()];
    const waiting = aborts.map((abort, cents) =>
      client
        .callTool({ name: 'send_payment', arguments: { to: 'x', cents } }, undefined, {
          signal: abort.signal,
        })
        .catch((error: unknown) => error),
    );
    await pendingOf(gateway, 'slots', 2);
    const busy = await client.callTool({ name: 'echo', arguments: { a: 1 } });
    expect(errorTypeOf(busy)).toBe('service_unavailable');
    for (const abort of aborts) abort.abort();
    await within(5000, Promise.all(waiting));
    let free: unknown;
    const end = Date.now() + 3000;
    do {
      await sleep(30);
      free = await client.callTool({ name: 'echo', arguments: { a: 1 } });
    } while (errorTypeOf(free) === 'service_unavailable' && Date.now() < end);
    expect(parsed(free)).toMatchObject({ ok: true });
    expect(runs).toHaveLength(0);
  }, 30_000);
});

describe('resources/read of tool-results:// handles', () => {
  it('traversal, encodings, NUL, absolute paths, huge strings and other principals find nothing', async () => {
    const gateway = createToolGateway({
      env,
      budget: { maxChars: 2000, persistThresholdChars: 1000, persistDir },
    });
    const dump = defineTool({
      name: 'dump',
      description: 'Big text.',
      input: z.object({}),
      resultBudget: { fields: ['text'] },
      execute: () => ({ text: 'alice-private '.repeat(5000) }),
    });
    const options = { tools: [dump], gateway };
    const { client: alice } = await connect({
      ...options,
      principal: { accountId: 'alice', sessionId: 's1' },
    });
    const { client: aliceOther } = await connect({
      ...options,
      principal: { accountId: 'alice', sessionId: 's2' },
    });
    const { client: mallory } = await connect({
      ...options,
      principal: { accountId: 'mallory', sessionId: 's1' },
    });
    const { client: anonymous } = await connect(options);
    const big = await alice.callTool({ name: 'dump', arguments: {} });
    const link = (big.content as { type: string; uri?: string }[]).find(
      (part) => part.type === 'resource_link',
    )?.uri;
    expect(link).toMatch(/^tool-results:\/\/[\w.-]+$/);
    const name = link!.slice('tool-results://'.length);
    expect((await alice.readResource({ uri: link! })).contents[0]).toMatchObject({ uri: link });

    // Plant a symlink to a file outside in Alice's own folder: O_NOFOLLOW must refuse it.
    const outside = path.join(persistDir, 'outside.txt');
    await writeFile(outside, 'outside-secret');
    // Saved outputs live in `<account>/<user>/<session>` folders: find the one holding it.
    const folders = async (dir: string, depth: number): Promise<string[]> => {
      if (depth === 0) return [dir];
      const names = await readdir(dir).catch(() => [] as string[]);
      return (
        await Promise.all(names.map((entry) => folders(path.join(dir, entry), depth - 1)))
      ).flat();
    };
    let planted = false;
    for (const folder of await folders(persistDir, 3)) {
      const files = await readdir(folder).catch(() => [] as string[]);
      if (files.includes(name)) {
        await symlink(outside, path.join(folder, 'planted.txt'));
        await symlink('/etc/passwd', path.join(folder, 'passwd.txt'));
        planted = true;
      }
    }
    expect(planted).toBe(true);

    const hostile = [
      'tool-results://planted.txt',
      'tool-results://passwd.txt',
      `tool-results://../${name}`,
      `tool-results://./${name}`,
      `tool-results://s1/${name}`,
      `tool-results://..%2f${name}`,
      `tool-results://%2e%2e/${name}`,
      `tool-results://${encodeURIComponent(`../${name}`)}`,
      'tool-results://../../../../etc/passwd',
      'tool-results://..',
      'tool-results://.',
      'tool-results://',
      'tool-results:///etc/passwd',
      'tool-results://%2Fetc%2Fpasswd',
      'tool-results://C:\\Windows\\win.ini',
      'tool-results://..\\..\\outside.txt',
      `tool-results://${name}\u0000.png`,
      `tool-results://${name}\u0000`,
      `tool-results://${name}/`,
      `tool-results://${name}?x=1`,
      `tool-results://${name}#frag`,
      `tool-results://${name}\n`,
      ` tool-results://${name}`,
      `TOOL-RESULTS://${name}`,
      `tool-results://${'a'.repeat(200)}.txt`,
      `tool-results://${'a'.repeat(5000)}`,
      `tool-results://${'../'.repeat(100_000)}etc/passwd`,
      `file://${path.join(persistDir, 'outside.txt')}`,
      'file:///etc/passwd',
      path.join(persistDir, 'outside.txt'),
      '',
    ];
    for (const uri of hostile) {
      const { value: outcome, lag } = await loopLag(() =>
        within(
          5000,
          alice.readResource({ uri }).then(
            (read) => ({ read }),
            (error: unknown) => ({ error: error as { code?: number; message: string } }),
          ),
          uri.slice(0, 40),
        ),
      );
      const label = JSON.stringify(uri.slice(0, 80));
      expect('error' in outcome, `${label} was read`).toBe(true);
      if ('error' in outcome) {
        expect(outcome.error.code, label).toBe(-32002);
        expect(outcome.error.message.length, label).toBeLessThan(400);
        expect(outcome.error.message).not.toContain('outside-secret');
      }
      expect(lag, label).toBeLessThan(1000);
    }
    // Another account, another session of the same account, the default principal: not found.
    for (const [who, client] of [
      ['mallory', mallory],
      ['alice in another session', aliceOther],
      ['anonymous', anonymous],
    ] as const) {
      await expect(client.readResource({ uri: link! }), who).rejects.toMatchObject({
        code: -32002,
      });
    }
    // Still readable by its owner after all that.
    const read = await alice.readResource({ uri: link! });
    expect((read.contents[0] as { text: string }).text).toContain('alice-private');
  }, 60_000);
});

describe('secrets in what tools return', () => {
  it('a gateway env secret is redacted from results, errors and saved outputs', async () => {
    const secret = 'sk_live_attack_0123456789abcdef';
    const gateway = createToolGateway({
      env: { ...env, PAYMENTS_API_KEY: secret },
      budget: { maxChars: 2000, persistThresholdChars: 1000, persistDir },
    });
    const leaky = defineTool({
      name: 'leaky',
      description: 'Leaks.',
      input: z.object({ mode: z.enum(['small', 'big', 'throw', 'nested']) }),
      resultBudget: { fields: ['text'] },
      execute: (args) => {
        if (args.mode === 'throw') throw new Error(`connection failed with key ${secret}`);
        if (args.mode === 'big') return { text: `${'padding '.repeat(1000)} key=${secret} end` };
        if (args.mode === 'nested') return { deep: { list: [{ [`k_${secret}`]: secret }] } };
        return { text: `the key is ${secret}` };
      },
    });
    const asked: string[] = [];
    const gated = defineTool({
      name: 'gated_echo',
      description: 'Gated.',
      input: z.object({ note: z.string() }),
      policy: { riskLevel: 'high', sideEffects: ['payment'] },
      execute: (args) => ({ note: args.note }),
    });
    const { client } = await connect(
      { tools: [leaky, gated], gateway, principal: { accountId: 'sec', sessionId: 's' } },
      (message) => {
        asked.push(message);
        return { action: 'accept' };
      },
    );
    for (const mode of ['small', 'big', 'throw', 'nested']) {
      const result = await client.callTool({ name: 'leaky', arguments: { mode } });
      const text = JSON.stringify(result);
      expect(text, mode).not.toContain(secret);
      if (mode === 'small' || mode === 'throw') expect(text, mode).toContain('[REDACTED]');
      for (const part of result.content as { type: string; uri?: string }[]) {
        if (part.type !== 'resource_link') continue;
        const read = JSON.stringify(await client.readResource({ uri: part.uri! }));
        expect(read).not.toContain(secret);
        expect(read).toContain('[REDACTED]');
      }
    }
    // A model that puts the secret in a gated call's arguments: the tool's echo of it is redacted.
    // (The approval dialog shows the arguments as they are: the human approves exactly what runs,
    // and it goes back to the client that sent them; core does not claim to redact those.)
    const echoed = await client.callTool({ name: 'gated_echo', arguments: { note: secret } });
    expect(asked).toHaveLength(1);
    expect(parsed(echoed)).toMatchObject({ ok: true, note: '[REDACTED]' });
    expect(JSON.stringify(echoed)).not.toContain(secret);
  }, 30_000);
});
