import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { KsadkError } from '../errors/ksadk-error.js';
import { defineJsonSchemaTool, defineTool } from './define-tool.js';

const base = { description: 'd', execute: () => ({ ok: true }) };

describe('defineTool', () => {
  it('fills policy defaults and freezes the tool', () => {
    const tool = defineTool({ name: 't', input: z.object({ a: z.string() }), ...base });
    expect(tool.policy).toEqual({
      riskLevel: 'low',
      sideEffects: [],
      approvalScopes: [],
      approvalExempt: false,
      requiresApproval: undefined,
      allowStandingGrants: false,
      onExpiry: undefined,
      idempotent: false,
    });
    expect(tool.group).toBe('custom');
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it('refuses an approval parameter, bad names, non-object inputs and empty descriptions', () => {
    const error = (fn: () => unknown) => {
      try {
        fn();
      } catch (caught) {
        return KsadkError.isInstance(caught) ? caught.code : 'other';
      }
      return 'none';
    };
    expect(
      error(() => defineTool({ name: 't', input: z.object({ approval: z.any() }), ...base })),
    ).toBe('invalid_tool');
    expect(error(() => defineTool({ name: 'bad name', input: z.object({}), ...base }))).toBe(
      'invalid_tool',
    );
    expect(error(() => defineTool({ name: 'x'.repeat(65), input: z.object({}), ...base }))).toBe(
      'invalid_tool',
    );
    expect(error(() => defineTool({ name: 't', input: z.string() as never, ...base }))).toBe(
      'invalid_tool',
    );
    expect(
      error(() => defineTool({ name: 't', input: z.object({}), ...base, description: ' ' })),
    ).toBe('invalid_tool');
    expect(
      error(() =>
        defineJsonSchemaTool({
          name: 't',
          inputSchema: { type: 'object', properties: { approval: {} } },
          ...base,
        }),
      ),
    ).toBe('invalid_tool');
    expect(
      error(() => defineJsonSchemaTool({ name: 't', inputSchema: { type: 'string' }, ...base })),
    ).toBe('invalid_tool');
  });

  it('copies an external schema so later changes cannot alter the tool', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const tool = defineJsonSchemaTool({
      name: 't',
      inputSchema: schema,
      originalName: 'orig.t',
      ...base,
    });
    (schema.properties as Record<string, unknown>)['b'] = { type: 'number' };
    expect(tool.inputSchema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    expect(tool.originalName).toBe('orig.t');
    expect(tool.group).toBe('external');
  });
});

describe('KsadkError', () => {
  it('is recognised across copies through its Symbol.for marker', () => {
    const error = new KsadkError('internal', 'x');
    expect(KsadkError.isInstance(error)).toBe(true);
    const lookalike = Object.assign(new Error('y'), { [Symbol.for('ksadk.error')]: true });
    expect(KsadkError.isInstance(lookalike)).toBe(true);
    expect(KsadkError.isInstance(new Error('z'))).toBe(false);
    expect(KsadkError.isInstance(null)).toBe(false);
  });
});
