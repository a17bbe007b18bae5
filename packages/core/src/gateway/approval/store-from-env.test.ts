import { describe, expect, it } from 'vitest';
import { loadAgentTools } from '../../catalog/load-agent-tools.js';
import { importOptional } from '../../util/deferred-modules.js';
import { redactSecrets } from '../../util/redact.js';
import { createToolGateway } from '../create-tool-gateway.js';
import { approvalStoreChoice, approvalStoreFromEnv } from './store-from-env.js';

describe('KSADK_APPROVAL_STORE', () => {
  it('reads memory, Redis and PostgreSQL URLs; the password is redacted from then on', () => {
    expect(approvalStoreChoice({})).toEqual({ kind: 'memory' });
    expect(approvalStoreChoice({ KSADK_APPROVAL_STORE: ' in_memory ' })).toEqual({
      kind: 'memory',
    });
    expect(
      approvalStoreChoice({ KSADK_APPROVAL_STORE: 'rediss://:pw-r3dis-Secret@cache:6380/2' }),
    ).toEqual({
      kind: 'redis',
      url: 'rediss://:pw-r3dis-Secret@cache:6380/2',
    });
    expect(
      approvalStoreChoice({ KSADK_APPROVAL_STORE: 'postgresql://app:pg%2Fpass-w0rd@db/ksadk' }),
    ).toMatchObject({
      kind: 'postgres',
    });
    expect(redactSecrets('leaked pw-r3dis-Secret and pg/pass-w0rd')).not.toMatch(
      /pw-r3dis|pg\/pass/,
    );
  });

  it('refuses anything else without repeating the value', () => {
    for (const value of [
      'mysql://u:hunter2-xyz@h/db',
      'redis',
      'file:///tmp/x',
      'http://u:hunter2-xyz@h',
    ]) {
      expect(() => approvalStoreChoice({ KSADK_APPROVAL_STORE: value })).toThrowError(
        expect.objectContaining({
          code: 'invalid_config',
          message: expect.not.stringContaining('hunter2'),
        }),
      );
    }
  });

  it('a gateway cannot silently fall back to this process when a shared store is named', () => {
    expect(() =>
      createToolGateway({
        env: { KSADK_APPROVAL_STORE: 'redis://127.0.0.1:1', KSADK_APPROVAL_SECRET: 'x'.repeat(32) },
      }),
    ).toThrowError(/names a shared approval store.*approvalStoreFromEnv/);
  });

  it('names the package to install when a store package cannot be found', async () => {
    await expect(
      importOptional(
        '@ksadk/no-such-store',
        'KSADK_APPROVAL_STORE names a store',
        '@ksadk/no-such-store',
      ),
    ).rejects.toMatchObject({
      code: 'setup',
      message: 'KSADK_APPROVAL_STORE names a store, so install it: npm i @ksadk/no-such-store',
    });
    expect(await approvalStoreFromEnv({})).toBeUndefined();
  });

  it('KSADK_LTM_BACKEND=postgres|redis needs KSADK_LTM_URL', async () => {
    for (const backend of ['postgres', 'redis'])
      await expect(loadAgentTools({ env: { KSADK_LTM_BACKEND: backend } })).rejects.toMatchObject({
        code: 'invalid_config',
        message: expect.stringContaining('KSADK_LTM_URL'),
      });
  });
});
