import { Validator } from '@cfworker/json-schema';
import { tool as langChainTool } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { tool as aiSdkTool, asSchema, jsonSchema } from 'ai';
import { zodFunction } from 'openai/helpers/zod';
import { toStrictJsonSchema } from 'openai/lib/transform';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { defineJsonSchemaTool, defineTool } from '../tool/define-tool.js';
import type { JsonSchema, Tool } from '../tool/tool.js';
import { toolJsonSchema } from './canonical-schema.js';
import {
  aiSdkToolSchema,
  anthropicToolSchema,
  geminiToolSchema,
  langChainToolSchema,
  normalizeOpenAIArguments,
  openAIToolSchema,
} from './tool-schemas.js';

/**
 * One schema and what should happen to it in each target.
 * - `valid`: arguments in the tool's own form (optional fields may be absent).
 * - `strictValid`: the same call as a strict-mode model would send it (every field present,
 *   `null` for absent optional ones); normalised, it must parse to `parsed` (default: `valid`).
 * - `invalid`: arguments every target must still reject.
 * - `strict`: whether the OpenAI form can be strict without loss (`false` ⇒ `reason` matches).
 */
interface Case {
  name: string;
  tool: Tool;
  valid: Record<string, unknown>;
  strictValid?: Record<string, unknown>;
  parsed?: Record<string, unknown>;
  invalid?: Record<string, unknown>;
  strict: boolean;
  reason?: RegExp;
}

const zodCase = (name: string, input: z.ZodObject, rest: Omit<Case, 'name' | 'tool'>): Case => ({
  name: `zod: ${name}`,
  tool: defineTool({
    name: 'corpus_tool',
    description: name,
    input,
    execute: (args) => ({ ok: true, args }),
  }),
  ...rest,
});

const jsonCase = (
  name: string,
  inputSchema: JsonSchema,
  rest: Omit<Case, 'name' | 'tool'>,
): Case => ({
  name: `json: ${name}`,
  tool: defineJsonSchemaTool({
    name: 'corpus_tool',
    description: name,
    inputSchema,
    execute: (args) => ({ ok: true, args }),
  }),
  ...rest,
});

interface TreeNode {
  label: string;
  children?: TreeNode[] | undefined;
}
const Tree: z.ZodType<TreeNode> = z.object({
  label: z.string(),
  get children() {
    return z.array(Tree).optional();
  },
});

const cases: Case[] = [
  zodCase('optional string', z.object({ a: z.string(), b: z.string().optional() }), {
    valid: { a: 'x' },
    strictValid: { a: 'x', b: null },
    invalid: { a: 1 },
    strict: true,
  }),
  zodCase('nullable string', z.object({ a: z.string().nullable() }), {
    valid: { a: null },
    invalid: {},
    strict: true,
  }),
  zodCase('optional and nullable', z.object({ a: z.string().nullable().optional() }), {
    valid: { a: null },
    strict: true,
  }),
  zodCase('default', z.object({ n: z.number().default(3) }), {
    valid: {},
    strictValid: { n: null },
    parsed: { n: 3 },
    invalid: { n: 'x' },
    strict: true,
  }),
  zodCase('enum', z.object({ color: z.enum(['red', 'green']) }), {
    valid: { color: 'red' },
    invalid: { color: 'blue' },
    strict: true,
  }),
  zodCase('optional enum', z.object({ color: z.enum(['red', 'green']).optional() }), {
    valid: {},
    strictValid: { color: null },
    invalid: { color: 'blue' },
    strict: true,
  }),
  zodCase('string literal', z.object({ kind: z.literal('fixed') }), {
    valid: { kind: 'fixed' },
    invalid: { kind: 'other' },
    strict: true,
  }),
  zodCase('numeric literal', z.object({ version: z.literal(2) }), {
    valid: { version: 2 },
    invalid: { version: 3 },
    strict: true,
  }),
  zodCase('union of scalars', z.object({ id: z.union([z.string(), z.number()]) }), {
    valid: { id: 7 },
    invalid: { id: true },
    strict: true,
  }),
  zodCase(
    'discriminated union',
    z.object({
      shape: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('circle'), radius: z.number() }),
        z.object({ kind: z.literal('square'), side: z.number(), label: z.string().optional() }),
      ]),
    }),
    {
      valid: { shape: { kind: 'square', side: 2 } },
      strictValid: { shape: { kind: 'square', side: 2, label: null } },
      invalid: { shape: { kind: 'circle', side: 2 } },
      strict: true,
    },
  ),
  zodCase('record (open map)', z.object({ labels: z.record(z.string(), z.string()) }), {
    valid: { labels: { a: 'b' } },
    invalid: { labels: { a: 1 } },
    strict: false,
    reason: /open object|propertyNames/,
  }),
  zodCase(
    'array of objects',
    z.object({ rows: z.array(z.object({ k: z.string(), v: z.number().optional() })) }),
    {
      valid: { rows: [{ k: 'a' }, { k: 'b', v: 1 }] },
      strictValid: {
        rows: [
          { k: 'a', v: null },
          { k: 'b', v: 1 },
        ],
      },
      invalid: { rows: [{ v: 1 }] },
      strict: true,
    },
  ),
  zodCase(
    'nested objects',
    z.object({
      outer: z.object({ inner: z.object({ deep: z.boolean().optional(), x: z.string() }) }),
    }),
    {
      valid: { outer: { inner: { x: 'y' } } },
      strictValid: { outer: { inner: { x: 'y', deep: null } } },
      invalid: { outer: { inner: {} } },
      strict: true,
    },
  ),
  zodCase('recursive', z.object({ tree: Tree }), {
    valid: { tree: { label: 'root', children: [{ label: 'leaf' }] } },
    strictValid: { tree: { label: 'root', children: [{ label: 'leaf', children: null }] } },
    parsed: { tree: { label: 'root', children: [{ label: 'leaf' }] } },
    invalid: { tree: { children: [] } },
    strict: true,
  }),
  zodCase('string formats', z.object({ email: z.email(), when: z.iso.datetime(), id: z.uuid() }), {
    valid: {
      email: 'a@example.com',
      when: '2026-01-02T03:04:05Z',
      id: '123e4567-e89b-42d3-a456-426614174000',
    },
    invalid: { email: 'nope', when: 'yesterday', id: 'x' },
    strict: true,
  }),
  zodCase('number bounds', z.object({ n: z.int().min(1).max(10), ratio: z.number().gt(0).lt(1) }), {
    valid: { n: 5, ratio: 0.5 },
    invalid: { n: 11, ratio: 1 },
    strict: true,
  }),
  zodCase(
    'string length and pattern',
    z.object({
      code: z
        .string()
        .min(2)
        .max(4)
        .regex(/^[A-Z]+$/),
    }),
    {
      valid: { code: 'ABC' },
      invalid: { code: 'abcdef' },
      strict: true,
    },
  ),
  zodCase('array bounds', z.object({ tags: z.array(z.string()).min(1).max(3) }), {
    valid: { tags: ['a'] },
    invalid: { tags: [] },
    strict: true,
  }),
  zodCase('empty object', z.object({}), { valid: {}, strict: true }),
  zodCase(
    'optional nested object',
    z.object({ opts: z.object({ verbose: z.boolean() }).optional() }),
    {
      valid: {},
      strictValid: { opts: null },
      invalid: { opts: { verbose: 'yes' } },
      strict: true,
    },
  ),
  zodCase('described fields', z.object({ city: z.string().describe('City name') }), {
    valid: { city: 'Paris' },
    strict: true,
  }),
  jsonCase(
    '$ref + $defs',
    {
      type: 'object',
      properties: { address: { $ref: '#/$defs/Address' }, billing: { $ref: '#/$defs/Address' } },
      required: ['address'],
      $defs: {
        Address: {
          type: 'object',
          properties: { street: { type: 'string' }, zip: { type: 'string' } },
          required: ['street', 'zip'],
        },
      },
    },
    {
      valid: { address: { street: 'a', zip: '1' } },
      strictValid: { address: { street: 'a', zip: '1' }, billing: null },
      parsed: { address: { street: 'a', zip: '1' } },
      invalid: { address: { street: 'a' } },
      strict: true,
    },
  ),
  jsonCase(
    'draft-07 definitions',
    {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { item: { $ref: '#/definitions/Item' } },
      required: ['item'],
      definitions: {
        Item: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
      },
    },
    { valid: { item: { sku: 'x' } }, invalid: { item: {} }, strict: true },
  ),
  jsonCase(
    'anyOf with null',
    {
      type: 'object',
      properties: { note: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      required: ['note'],
    },
    { valid: { note: null }, invalid: { note: 3 }, strict: true },
  ),
  jsonCase(
    'type arrays',
    {
      type: 'object',
      properties: { v: { type: ['string', 'integer'], minLength: 2, minimum: 5 } },
      required: ['v'],
    },
    { valid: { v: 'ab' }, invalid: { v: 3 }, strict: true },
  ),
  jsonCase(
    'optional nullable type array',
    { type: 'object', properties: { v: { type: ['string', 'null'] } } },
    { valid: { v: null }, strict: true },
  ),
  jsonCase(
    'const',
    {
      type: 'object',
      properties: { mode: { const: 'fast' }, level: { const: 2 } },
      required: ['mode', 'level'],
    },
    { valid: { mode: 'fast', level: 2 }, invalid: { mode: 'slow', level: 2 }, strict: true },
  ),
  jsonCase(
    'numeric enum',
    {
      type: 'object',
      properties: { size: { type: 'integer', enum: [1, 2, 4] } },
      required: ['size'],
    },
    { valid: { size: 4 }, invalid: { size: 3 }, strict: true },
  ),
  jsonCase(
    'mixed enum',
    { type: 'object', properties: { v: { enum: ['auto', 0, null] } }, required: ['v'] },
    { valid: { v: 0 }, invalid: { v: 'manual' }, strict: true },
  ),
  jsonCase(
    'additionalProperties map',
    {
      type: 'object',
      properties: { env: { type: 'object', additionalProperties: { type: 'string' } } },
      required: ['env'],
    },
    {
      valid: { env: { A: 'b' } },
      invalid: { env: { A: 1 } },
      strict: false,
      reason: /open object/,
    },
  ),
  jsonCase(
    'open root',
    { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: true },
    { valid: { q: 'x', extra: 1 }, strict: false, reason: /open object/ },
  ),
  jsonCase(
    '$schema 2020-12',
    {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    },
    { valid: { q: 'x' }, invalid: { q: 1 }, strict: true },
  ),
  jsonCase('empty object schema', { type: 'object' }, { valid: {}, strict: true }),
  jsonCase(
    'root without type',
    { properties: { q: { type: 'string' } }, required: ['q'] },
    {
      valid: { q: 'x' },
      invalid: {},
      strict: true,
    },
  ),
  jsonCase('bare empty schema', {}, { valid: {}, strict: true }),
  jsonCase(
    'oneOf branches',
    {
      type: 'object',
      properties: {
        target: {
          oneOf: [
            {
              type: 'object',
              properties: { url: { type: 'string' } },
              required: ['url'],
              additionalProperties: false,
            },
            {
              type: 'object',
              properties: { path: { type: 'string' } },
              required: ['path'],
              additionalProperties: false,
            },
          ],
        },
      },
      required: ['target'],
    },
    { valid: { target: { path: '/x' } }, invalid: { target: { file: 'x' } }, strict: true },
  ),
  jsonCase(
    'tuple items',
    {
      type: 'object',
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['pair'],
    },
    { valid: { pair: ['a', 1] }, strict: false, reason: /prefixItems/ },
  ),
  jsonCase(
    'uniqueItems',
    {
      type: 'object',
      properties: { ids: { type: 'array', items: { type: 'string' }, uniqueItems: true } },
      required: ['ids'],
    },
    {
      valid: { ids: ['a', 'b'] },
      invalid: { ids: ['a', 'a'] },
      strict: false,
      reason: /uniqueItems/,
    },
  ),
  jsonCase(
    'recursive $ref',
    {
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      required: ['node'],
      $defs: {
        Node: {
          type: 'object',
          properties: {
            value: { type: 'number' },
            next: { anyOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }] },
          },
          required: ['value', 'next'],
        },
      },
    },
    {
      valid: { node: { value: 1, next: { value: 2, next: null } } },
      invalid: { node: { value: 1, next: { value: 'x', next: null } } },
      strict: true,
    },
  ),
];

function validates(schema: JsonSchema, value: unknown): boolean {
  const declared = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  const draft =
    declared.includes('draft-07') || ('definitions' in schema && !('$defs' in schema))
      ? '7'
      : '2020-12';
  return new Validator(schema as never, draft, false).validate(value).valid;
}

function hasKey(schema: unknown, key: string): boolean {
  if (Array.isArray(schema)) return schema.some((item) => hasKey(item, key));
  if (typeof schema !== 'object' || schema === null) return false;
  return Object.entries(schema).some(([k, v]) => k === key || hasKey(v, key));
}

describe('schema corpus', () => {
  it('has at least 30 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  describe.each(cases)('$name', (testCase) => {
    const canonical = toolJsonSchema(testCase.tool);

    it('canonical: the schema accepts valid and rejects invalid arguments', () => {
      expect(validates(canonical, testCase.valid)).toBe(true);
      if (testCase.invalid) expect(validates(canonical, testCase.invalid)).toBe(false);
    });

    it('OpenAI: strict where lossless, agreeing with the SDK transform', () => {
      const result = openAIToolSchema(testCase.tool);
      expect(result.schema).not.toHaveProperty('$schema');
      expect(result.strict).toBe(testCase.strict);
      if (!result.strict) {
        expect(result.reason).toMatch(testCase.reason ?? /./);
        // The SDK cannot make it strict either.
        expect(() => toStrictJsonSchema(canonical as never)).toThrow();
        expect(validates(result.schema, testCase.valid)).toBe(true);
        return;
      }
      expect(hasKey(result.schema, 'oneOf')).toBe(false);
      // Our strict form is a fixed point of the SDK's own strict transform.
      expect(toStrictJsonSchema(structuredClone(result.schema) as never)).toEqual(result.schema);
      const strictValid = testCase.strictValid ?? testCase.valid;
      expect(validates(result.schema, strictValid)).toBe(true);
      if (testCase.invalid) expect(validates(result.schema, testCase.invalid)).toBe(false);
    });

    it('OpenAI: normalised strict arguments round-trip through the original schema', async () => {
      const result = openAIToolSchema(testCase.tool);
      const sent = result.strict ? (testCase.strictValid ?? testCase.valid) : testCase.valid;
      const normalized = normalizeOpenAIArguments(
        testCase.tool,
        structuredClone(sent),
        result.strict,
      );
      expect(validates(canonical, normalized)).toBe(true);
      const gateway = createToolGateway({ env: {} });
      const ran = await gateway.invoke(testCase.tool, normalized);
      expect(ran).toEqual({ ok: true, args: testCase.parsed ?? testCase.valid });
    });

    it('Gemini/ADK: plain JSON Schema, same accept/reject behaviour', () => {
      const schema = geminiToolSchema(testCase.tool);
      expect(schema).not.toHaveProperty('$schema');
      expect(hasKey(schema, 'oneOf')).toBe(false);
      expect(hasKey(schema, 'definitions')).toBe(false);
      expect(schema['type']).toBe('object');
      const refs = JSON.stringify(schema).match(/"\$ref":"([^"]+)"/g) ?? [];
      for (const ref of refs) expect(ref).toMatch(/#\/\$defs\//);
      const visit = (node: unknown): void => {
        if (Array.isArray(node)) {
          for (const item of node) visit(item);
          return;
        }
        if (typeof node !== 'object' || node === null) return;
        const record = node as Record<string, unknown>;
        expect(Array.isArray(record['type'])).toBe(false);
        expect('const' in record).toBe(false);
        if (Array.isArray(record['enum'])) {
          expect(new Set(record['enum'].map((v) => (v === null ? 'null' : typeof v))).size).toBe(1);
          expect(record['type']).toBeDefined();
        }
        for (const item of Object.values(record)) visit(item);
      };
      visit(schema);
      expect(validates(schema, testCase.valid)).toBe(true);
      if (testCase.invalid) expect(validates(schema, testCase.invalid)).toBe(false);
    });

    it('AI SDK: jsonSchema() takes the schema as is, and it accepts and rejects the same', async () => {
      const schema = aiSdkToolSchema(testCase.tool);
      expect(schema).not.toHaveProperty('$schema');
      const defined = aiSdkTool({
        description: testCase.tool.description,
        inputSchema: jsonSchema(schema),
        execute: async (input: unknown) => input,
      });
      const sent = await asSchema(defined.inputSchema).jsonSchema;
      expect(sent).toEqual(schema);
      expect(validates(sent as JsonSchema, testCase.valid)).toBe(true);
      if (testCase.invalid) expect(validates(sent as JsonSchema, testCase.invalid)).toBe(false);
      const gateway = createToolGateway({ env: {} });
      expect(await gateway.invoke(testCase.tool, structuredClone(testCase.valid))).toEqual({
        ok: true,
        args: testCase.parsed ?? testCase.valid,
      });
    });

    it('Anthropic: an object input_schema without $schema or a top-level combinator, accepting and rejecting the same', async () => {
      const schema = anthropicToolSchema(testCase.tool);
      expect(schema).not.toHaveProperty('$schema');
      expect(schema['type']).toBe('object');
      for (const key of ['anyOf', 'oneOf', 'allOf']) expect(schema).not.toHaveProperty(key);
      expect(validates(schema, testCase.valid)).toBe(true);
      if (testCase.invalid) expect(validates(schema, testCase.invalid)).toBe(false);
      const gateway = createToolGateway({ env: {} });
      expect(await gateway.invoke(testCase.tool, structuredClone(testCase.valid))).toEqual({
        ok: true,
        args: testCase.parsed ?? testCase.valid,
      });
    });

    it('LangChain: tool() accepts the schema and parses the same arguments', async () => {
      const schema = langChainToolSchema(testCase.tool);
      const lcTool = langChainTool(async (input: unknown) => JSON.stringify(input), {
        name: testCase.tool.name,
        description: testCase.tool.description,
        schema: schema as never,
      });
      const output = await lcTool.invoke(testCase.valid as never);
      expect(JSON.parse(output as string)).toEqual(
        testCase.tool.kind === 'zod' ? (testCase.parsed ?? testCase.valid) : testCase.valid,
      );
      if (testCase.invalid)
        await expect(lcTool.invoke(testCase.invalid as never)).rejects.toThrow();
      const converted = convertToOpenAITool(lcTool);
      expect(converted.function.name).toBe('corpus_tool');
    });
  });

  it('zodFunction (the SDK helper) agrees on property sets where it can convert the schema', () => {
    for (const testCase of cases) {
      if (testCase.tool.kind !== 'zod' || !testCase.strict) continue;
      let sdk: { function: { parameters?: Record<string, unknown>; strict?: boolean | null } };
      try {
        sdk = zodFunction({ name: 'corpus_tool', parameters: testCase.tool.input as never });
      } catch {
        continue; // The SDK refuses `.optional()` without `.nullable()`; we convert those.
      }
      const ours = openAIToolSchema(testCase.tool).schema;
      expect(sdk.function.strict).toBe(true);
      expect(
        Object.keys((sdk.function.parameters?.['properties'] as object) ?? {}).sort(),
        testCase.name,
      ).toEqual(Object.keys((ours['properties'] as object) ?? {}).sort());
      expect(
        [...((sdk.function.parameters?.['required'] as string[]) ?? [])].sort(),
        testCase.name,
      ).toEqual([...((ours['required'] as string[]) ?? [])].sort());
    }
  });
});
