import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolCatalog } from '../catalog/tool-catalog.js';
import { runWithInvocationContext } from '../context/invocation-context.js';
import { createInMemoryApprovalStore } from '../gateway/approval/store.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { defineTool } from '../tool/define-tool.js';
import { createWorkspaceToolset } from '../workspace/index.js';
import { KsadkError } from './ksadk-error.js';

const thrown = (fn: () => unknown): KsadkError => {
  try {
    fn();
  } catch (error) {
    if (KsadkError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a KsadkError');
};

describe('unknown option keys are refused, never ignored', () => {
  it('createToolGateway({ mode: "ask" }) names the key and the intended one', () => {
    const error = thrown(() => createToolGateway({ mode: 'ask' } as never));
    expect(error.code).toBe('invalid_config');
    expect(error.message).toMatch(/no option "mode" — did you mean "approvalMode"\?/);
    expect(thrown(() => createToolGateway({ budget: { maxChar: 10 } } as never)).message).toMatch(
      /"maxChar" — did you mean "maxChars"/,
    );
    expect(
      thrown(() => createToolGateway({ hooks: { onEnd: () => {} } } as never)).message,
    ).toMatch(/"onEnd" — did you mean "onToolEnd"/);
  });

  it('every public factory checks its options', () => {
    expect(thrown(() => createInMemoryApprovalStore({ perSesion: {} } as never)).message).toMatch(
      /perSession/,
    );
    expect(thrown(() => createToolCatalog({ workspaces: {} } as never)).message).toMatch(
      /did you mean "workspace"/,
    );
    expect(thrown(() => createWorkspaceToolset({ rot: '/tmp' } as never)).message).toMatch(/root/);
    expect(
      thrown(() => runWithInvocationContext({ account: 'a' } as never, () => undefined)).message,
    ).toMatch(/accountId/);
    const tool = thrown(() =>
      defineTool({
        name: 't',
        description: 'T.',
        input: z.object({}),
        execute: () => ({ ok: true }),
        risk: 'high',
      } as never),
    );
    expect(tool.code).toBe('invalid_tool');
  });
});
