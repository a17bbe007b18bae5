import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../tool/tool.js';
import { normalizeStrictInput } from './normalize-strict-input.js';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    encoding: { type: 'string' },
    nested: {
      type: 'object',
      properties: { deep: { type: 'string' }, keep: { type: ['string', 'null'] } },
    },
    list: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } } } },
  },
  required: ['path'],
};

describe('normalizeStrictInput', () => {
  it('gives back the very value when it holds no null (nothing to undo, nothing copied)', () => {
    const value = { path: 'a.txt', nested: { deep: 'x' }, list: [{ x: 1 }] };
    expect(normalizeStrictInput(schema, value)).toBe(value);
  });

  it('still drops a synthetic null however deep, and keeps a null the schema accepts', () => {
    const value = {
      path: 'a.txt',
      encoding: null,
      nested: { deep: null, keep: null },
      list: [{ x: null }, { x: 2 }],
    };
    expect(normalizeStrictInput(schema, value)).toEqual({
      path: 'a.txt',
      nested: { keep: null },
      list: [{}, { x: 2 }],
    });
  });

  it('finds a null under an own key named __proto__', () => {
    const value = JSON.parse('{"path":"a","__proto__":{"deep":null},"encoding":null}');
    expect(normalizeStrictInput(schema, value)).not.toHaveProperty('encoding');
  });
});
