import { describe, expect, it } from 'vitest';
import { createToolNameRegistry, sanitizeToolName } from './tool-names.js';

describe('sanitizeToolName', () => {
  it('keeps valid names and fixes invalid ones', () => {
    expect(sanitizeToolName('read_workspace_file')).toBe('read_workspace_file');
    expect(sanitizeToolName('weather.forecast')).toBe('weather_forecast');
    expect(sanitizeToolName('9lives')).toBe('_9lives');
    expect(sanitizeToolName('-x')).toBe('_-x');
    expect(sanitizeToolName('天气 查询')).toBe('_____');
  });

  it('cuts long names to 64 characters with a hash that keeps them distinct', () => {
    const a = sanitizeToolName(`${'a'.repeat(90)}_one`);
    const b = sanitizeToolName(`${'a'.repeat(90)}_two`);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/);
  });
});

describe('createToolNameRegistry', () => {
  it('reports collisions with a suffix and keeps the reverse map', () => {
    const names = createToolNameRegistry();
    expect(names.register('search.web')).toBe('search_web');
    const second = names.register('search_web');
    expect(second).toMatch(/^search_web_[0-9a-f]{8}$/);
    expect(names.originalOf('search_web')).toBe('search.web');
    expect(names.originalOf(second!)).toBe('search_web');
    expect(names.nameOf('search_web')).toBe(second);
    expect(names.conflicts).toEqual([
      { kind: 'collision', original: 'search_web', name: second, existing: 'search.web' },
    ]);
  });

  it('refuses and reports duplicates rather than shadowing', () => {
    const names = createToolNameRegistry();
    names.register('echo');
    expect(names.register('echo')).toBeUndefined();
    expect(names.conflicts).toEqual([
      { kind: 'duplicate', original: 'echo', name: 'echo', existing: 'echo' },
    ]);
  });
});
