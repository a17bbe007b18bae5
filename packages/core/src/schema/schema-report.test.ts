import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJsonSchemaTool, defineTool } from '../tool/define-tool.js';
import { describeToolSchemas, SCHEMA_TARGETS } from './schema-report.js';

describe('describeToolSchemas', () => {
  it('gives every framework its schema: strict OpenAI where lossless, the zod object for LangChain', () => {
    const tool = defineTool({
      name: 'write_note',
      description: 'Writes a note.',
      input: z.object({ title: z.string(), tags: z.array(z.string()).optional() }),
      execute: () => ({ ok: true }),
    });
    const report = describeToolSchemas(tool);
    expect(Object.keys(report.targets)).toEqual([...SCHEMA_TARGETS]);
    expect(report.problems).toEqual([]);
    expect(report.targets.openai).toMatchObject({ ok: true, strict: true });
    const openai = report.targets.openai.ok ? report.targets.openai.schema : {};
    expect(openai['required']).toEqual(['title', 'tags']);
    expect(report.targets.langchain).toMatchObject({ ok: true, zod: true });
    for (const target of SCHEMA_TARGETS) {
      const schema = report.targets[target];
      expect(schema.ok && schema.schema).not.toHaveProperty('$schema');
    }
  });

  it('says why OpenAI strict mode does not hold, and reports a conversion that fails instead of throwing', () => {
    const open = defineJsonSchemaTool({
      name: 'set_labels',
      description: 'Sets labels.',
      inputSchema: {
        type: 'object',
        properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
      },
      execute: () => ({ ok: true }),
    });
    const report = describeToolSchemas(open);
    expect(report.targets.openai).toMatchObject({ ok: true, strict: false });
    expect(report.problems.join('\n')).toMatch(/^openai: not strict — /);
    expect(report.targets.gemini.ok).toBe(true);

    const dangling = defineJsonSchemaTool({
      name: 'odd',
      description: 'A schema with a reference to nothing.',
      inputSchema: { type: 'object', properties: { x: { $ref: '#/$defs/missing' } } },
      execute: () => ({ ok: true }),
    });
    expect(describeToolSchemas(dangling).problems).toEqual([
      'openai: not strict — unresolvable $ref #/$defs/missing at properties/x',
    ]);
  });
});
