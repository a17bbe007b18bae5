import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KsadkError } from '../errors/ksadk-error.js';
import { createInMemoryApprovalStore } from '../gateway/approval/store.js';
import { approvalStoreOverIpc, serveApprovalStoreOverIpc } from './ipc-approval-store.js';

const CHILD = fileURLToPath(new URL('./test-fixtures/ipc-store-child.mjs', import.meta.url));

describe('an approval store shared over IPC', () => {
  it("a child's gateway makes its request in the parent's store; store errors come back typed; no other method runs", {
    timeout: 60_000,
  }, async () => {
    const store = createInMemoryApprovalStore();
    const refusing = Object.assign(Object.create(store), {
      get: async (id: string) => {
        if (id === 'appr_refused') throw new KsadkError('store_unavailable', 'the store is down');
        return store.get(id);
      },
    });
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
      timeout: 50_000,
    });
    serveApprovalStoreOverIpc(child, refusing);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.result).toMatchObject({ ok: false, type: 'approval_required' });
    expect(report.refused).toEqual({
      typed: true,
      code: 'store_unavailable',
      message: 'the store is down',
    });
    expect(report.unknown).toEqual({ id: -1 });
    const listed = await store.listRequests({ accountId: 'acct-ipc', now: Date.now(), limit: 10 });
    expect(listed.items.map((item) => [item.toolName, item.callId])).toEqual([
      ['write_note', 'call_ipc'],
    ]);
  });

  it('without a parent, every call fails as invalid_config instead of waiting forever', async () => {
    const send = process.send;
    process.send = undefined;
    try {
      await expect(approvalStoreOverIpc().get('appr_x')).rejects.toMatchObject({
        code: 'invalid_config',
      });
    } finally {
      process.send = send;
    }
  });
});
