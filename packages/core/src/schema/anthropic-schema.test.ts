import { describe, expect, it } from 'vitest';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { defineJsonSchemaTool } from '../tool/define-tool.js';
import { toAnthropicInputSchema } from './anthropic-schema.js';
import { anthropicToolSchema } from './tool-schemas.js';

describe('Anthropic input_schema: what an MCP server sends, in a shape the API takes', () => {
  it('a top-level anyOf of required sets widens to optional properties; the gateway still refuses what the tool refuses', async () => {
    const tool = defineJsonSchemaTool({
      name: 'lookup',
      description: 'Looks a user up by id or by email.',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { verbose: { type: 'boolean' } },
        anyOf: [
          { properties: { id: { type: 'string' } }, required: ['id'] },
          { properties: { email: { type: 'string' } }, required: ['email'] },
        ],
      },
      execute: (args) => ({ ok: true, args }),
    });
    expect(anthropicToolSchema(tool)).toEqual({
      type: 'object',
      properties: {
        verbose: { type: 'boolean' },
        id: { type: 'string' },
        email: { type: 'string' },
      },
    });
    const gateway = createToolGateway({ env: {} });
    expect(await gateway.invoke(tool, { verbose: true })).toMatchObject({
      ok: false,
      error_type: 'invalid_arguments',
    });
    expect(await gateway.invoke(tool, { id: 'u1' })).toEqual({ ok: true, args: { id: 'u1' } });
  });

  it('allOf keeps its required fields; a missing type becomes object; the first property of a name wins', () => {
    expect(
      toAnthropicInputSchema({
        properties: { a: { type: 'string' } },
        allOf: [
          { properties: { a: { type: 'number' }, b: { type: 'string' } }, required: ['b'] },
          'not a schema',
        ],
        oneOf: 'not an array',
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      required: ['b'],
    });
  });

  it('a branch naming __proto__ is a property like any other, never the prototype', () => {
    const schema = toAnthropicInputSchema(
      JSON.parse('{"type":"object","anyOf":[{"properties":{"__proto__":{"type":"string"}}}]}'),
    );
    const properties = schema['properties'] as Record<string, unknown>;
    expect(Object.hasOwn(properties, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
  });
});
