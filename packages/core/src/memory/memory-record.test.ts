import { describe, expect, it } from 'vitest';
import { newMemoryRecord, parseMemoryRecord } from './memory-record.js';

describe('newMemoryRecord', () => {
  it('stamps an id and a time, and copies the metadata without __proto__ keys', () => {
    const metadata = JSON.parse('{"__proto__":{"polluted":1},"kind":"note","n":{"__proto__":1}}');
    const record = newMemoryRecord({ content: 'x', sessionId: 's', agentId: 'a', metadata });
    expect(record.id).toMatch(/^mem_[0-9a-f]{32}$/);
    expect(Number.isNaN(Date.parse(record.created_at))).toBe(false);
    expect(record).toMatchObject({ content: 'x', session_id: 's', agent_id: 'a' });
    expect(record.metadata).toEqual({ kind: 'note', n: {} });
    expect(Object.hasOwn(record.metadata ?? {}, '__proto__')).toBe(false);
    expect(record.metadata).not.toBe(metadata);
  });

  it('leaves out empty metadata, session and agent', () => {
    expect(
      Object.keys(newMemoryRecord({ content: 'x', sessionId: '', metadata: {} })).sort(),
    ).toEqual(['content', 'created_at', 'id']);
  });
});

describe('parseMemoryRecord', () => {
  it('reads a stored record back, known fields only', () => {
    const record = newMemoryRecord({ content: 'x', metadata: { a: 1 } });
    expect(parseMemoryRecord(JSON.stringify({ ...record, extra: true }))).toEqual(record);
  });

  it('gives undefined for anything that is not a memory record', () => {
    for (const text of ['{', 'null', '42', '[]', '{"id":"m","content":"c"}'])
      expect(parseMemoryRecord(text)).toBeUndefined();
  });

  it('gives undefined for a record with a __proto__ key at any depth (a planted record)', () => {
    const base = '"id":"m","content":"c","created_at":"2025-01-01T00:00:00.000Z"';
    for (const text of [
      `{"__proto__":{"polluted":1},${base}}`,
      `{${base},"metadata":{"__proto__":{"polluted":1}}}`,
      `{${base},"metadata":{"a":[{"__proto__":1}]}}`,
    ])
      expect(parseMemoryRecord(text)).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
