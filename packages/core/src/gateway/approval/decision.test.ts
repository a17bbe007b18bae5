import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../tool/define-tool.js';
import { createToolGateway } from '../create-tool-gateway.js';
import { isApprovalRequired } from '../results.js';
import { decideApproval, parseApprovalDecision } from './decision.js';

describe('parseApprovalDecision', () => {
  it('reads every documented shape and nothing else', () => {
    expect(parseApprovalDecision({ decisions: [{ type: 'approve' }] })).toEqual({
      type: 'approve',
    });
    expect(parseApprovalDecision({ decisions: [{ type: 'reject', message: 'no' }] })).toEqual({
      type: 'reject',
      reason: 'no',
    });
    expect(parseApprovalDecision({ approved: true, reason: 'ok' })).toEqual({
      type: 'approve',
      reason: 'ok',
    });
    expect(parseApprovalDecision({ approved: false })).toEqual({ type: 'reject' });
    expect(parseApprovalDecision('approve')).toEqual({ type: 'approve' });
    expect(parseApprovalDecision(false)).toEqual({ type: 'reject' });
    expect(parseApprovalDecision({ approved: 'false' })).toBeUndefined();
    expect(parseApprovalDecision({ approved: 'true' })).toBeUndefined();
    expect(parseApprovalDecision({ decisions: [] })).toBeUndefined();
    expect(parseApprovalDecision(null)).toBeUndefined();
  });

  it('reads approve, edit and reject, once or always, and refuses any malformed part', () => {
    expect(parseApprovalDecision({ action: 'edit', args: { a: '2' } })).toEqual({
      type: 'approve',
      args: { a: '2' },
    });
    expect(
      parseApprovalDecision({
        decisions: [{ type: 'edit', edited_action: { name: 'w', args: { a: '3' } } }],
      }),
    ).toEqual({ type: 'approve', args: { a: '3' } });
    expect(
      parseApprovalDecision({
        action: 'approve',
        always: 'session',
        until: '2030-01-01T00:00:00Z',
      }),
    ).toEqual({ type: 'approve', always: 'session', until: Date.parse('2030-01-01T00:00:00Z') });
    expect(parseApprovalDecision({ action: 'reject', always: 'user', reason: 'no' })).toEqual({
      type: 'reject',
      always: 'user',
      reason: 'no',
    });
    expect(
      parseApprovalDecision({
        type: 'approve',
        always: 'session',
        match: { path: { pathPrefix: 'docs/' } },
      }),
    ).toMatchObject({ match: { path: { pathPrefix: 'docs/' } } });
    for (const garbage of [
      { action: 'edit' },
      { action: 'edit', args: 'x' },
      { action: 'edit', args: [1] },
      { action: 'approve', always: 'forever' },
      { action: 'approve', always: true },
      { action: 'approve', until: 'tomorrow' },
      { action: 'approve', match: 'docs/' },
      { action: 'maybe' },
      { type: 'approve', action: 'reject' },
    ])
      expect(parseApprovalDecision(garbage)).toEqual(
        garbage.action === 'reject' ? { type: 'reject' } : undefined,
      );
  });
});

describe('decideApproval', () => {
  const tool = defineTool({
    name: 'w',
    description: 'w',
    input: z.object({ a: z.string() }),
    policy: { riskLevel: 'high' },
    execute: () => ({ ok: true }),
  });

  it('approves into a grant, rejects otherwise, and fails closed on garbage', async () => {
    const gateway = createToolGateway({ env: {} });
    const ask = async (a: string) => {
      const result = await gateway.invoke(tool, { a });
      if (!isApprovalRequired(result)) throw new Error('expected approval_required');
      return result.approval_request.id;
    };
    const grant = await decideApproval(gateway, await ask('1'), { type: 'approve' });
    expect(await gateway.invoke(tool, { a: '1' }, { approval: grant! })).toEqual({ ok: true });
    expect(
      await decideApproval(gateway, await ask('2'), { type: 'reject', message: 'nope' }),
    ).toBeUndefined();
    expect(await gateway.invoke(tool, { a: '2' })).toMatchObject({
      type: 'approval_rejected',
      reason: 'nope',
    });
    expect(await decideApproval(gateway, await ask('3'), { approved: 'yes' })).toBeUndefined();
    expect(await gateway.invoke(tool, { a: '3' })).toMatchObject({ type: 'approval_rejected' });
  });
});
