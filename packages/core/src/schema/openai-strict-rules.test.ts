import { describe, expect, it } from 'vitest';
import { openAIStrictViolations } from '../../../../test-support/openai-strict-rules.js';
import { defineJsonSchemaTool } from '../tool/define-tool.js';
import type { JsonSchema } from '../tool/tool.js';
import { geminiToolSchema, langChainToolSchema, openAIToolSchema } from './tool-schemas.js';

const toolOf = (name: string, schema: JsonSchema) =>
  defineJsonSchemaTool({
    name,
    description: 'x',
    inputSchema: schema,
    execute: async () => ({ ok: true }),
  });

describe('OpenAI strict schemas hold only what OpenAI accepts', () => {
  it('formats OpenAI does not list, defaults and examples move into the description (firecrawl)', () => {
    // The shape of firecrawl-mcp's scrape tool: OpenAI answered 400 "'uri' is not a valid format".
    const tool = toolOf('firecrawl_scrape', {
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri', description: 'The page.' },
        waitFor: { type: 'integer', format: 'int32', default: 0, examples: [1000] },
        when: { type: 'string', format: 'date-time' },
        contact: { type: 'string', format: 'email', 'x-order': 2 },
      },
      required: ['url'],
    });
    const { schema, strict } = openAIToolSchema(tool);
    expect(strict).toBe(true);
    expect(openAIStrictViolations(schema)).toEqual([]);
    const properties = schema['properties'] as Record<string, JsonSchema>;
    expect(properties['url']).toEqual({ type: 'string', description: 'The page. Format: uri.' });
    expect(properties['waitFor']!['description']).toBe('Format: int32. Default: 0. Example: 1000.');
    // Formats OpenAI lists stay.
    expect(properties['when']).toEqual({ type: ['string', 'null'], format: 'date-time' });
  });

  it('a keyword whose meaning cannot be kept makes the tool non-strict, with the reason', () => {
    const { strict, reason } = openAIToolSchema(
      toolOf('odd', {
        type: 'object',
        properties: { a: { type: 'string', contentPattern: 'x' } },
        required: ['a'],
      }),
    );
    expect(strict).toBe(false);
    expect(reason).toMatch(/unsupported keyword "contentPattern"/);
  });

  it("OpenAPI's nullable: true becomes a null type", () => {
    const { schema, strict } = openAIToolSchema(
      toolOf('openapi', {
        type: 'object',
        properties: { page: { type: 'integer', nullable: true } },
        required: ['page'],
      }),
    );
    expect(strict).toBe(true);
    expect((schema['properties'] as Record<string, unknown>)['page']).toEqual({
      type: ['integer', 'null'],
    });
    expect(openAIStrictViolations(schema)).toEqual([]);
  });
});

describe('definitions no $ref reaches are pruned, for every framework, before strictness', () => {
  // The shape of Notion's server: one table of definitions with every tool, most of it unused,
  // one unused definition open (a record), which made the tool non-strict.
  const shared = {
    used: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    reachedThroughUsed: { type: 'string', enum: ['a', 'b'] },
    unusedOpen: { type: 'object', additionalProperties: { type: 'string' } },
    unusedBig: {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`p${i}`, { type: 'string' }]),
      ),
    },
  };
  const tool = toolOf('notion_get_page', {
    type: 'object',
    properties: {
      page: { $ref: '#/$defs/used' },
      kind: { $ref: '#/definitions/kind' },
    },
    required: ['page'],
    $defs: {
      ...shared,
      used: { ...shared.used, properties: { id: { $ref: '#/$defs/reachedThroughUsed' } } },
    },
    definitions: { kind: { type: 'string' }, other: { type: 'number' } },
  });

  it('OpenAI gets a strict schema with only the reached definitions', () => {
    const { schema, strict } = openAIToolSchema(tool);
    expect(strict).toBe(true);
    expect(Object.keys(schema['$defs'] as object).sort()).toEqual(['reachedThroughUsed', 'used']);
    expect(Object.keys(schema['definitions'] as object)).toEqual(['kind']);
    expect(openAIStrictViolations(schema)).toEqual([]);
  });

  it('Gemini and LangChain carry no unused table either', () => {
    expect(JSON.stringify(geminiToolSchema(tool))).not.toMatch(/unusedBig|unusedOpen|"other"/);
    expect(JSON.stringify(langChainToolSchema(tool))).not.toMatch(/unusedBig|unusedOpen|"other"/);
  });
});
