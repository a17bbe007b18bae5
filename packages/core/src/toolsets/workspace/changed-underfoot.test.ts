import { describe, expect, it } from 'vitest';
import { changedUnderfootResult } from './changed-underfoot.js';

const errno = (code: unknown) =>
  Object.assign(new Error(`${String(code)}: no such file, stat '/srv/secret-root/acme/x'`), {
    code,
  });

describe('changedUnderfootResult', () => {
  it('maps the errors of a tree changed mid-call to what they mean, naming no path', () => {
    for (const [code, type] of [
      ['ENOENT', 'not_found'],
      ['EEXIST', 'already_exists'],
      ['ENOTDIR', 'not_a_directory'],
      ['EISDIR', 'is_a_directory'],
      ['ENOTEMPTY', 'directory_not_empty'],
    ] as const) {
      const result = changedUnderfootResult(errno(code));
      expect(result, code).toMatchObject({ ok: false, error_type: type });
      expect(result!.error_message).toContain('the workspace changed while the tool ran');
      expect(result!.error_message).not.toContain('/srv');
    }
  });

  it('leaves every other error to the gateway, including codes named like Object members', () => {
    for (const code of ['EACCES', 'EIO', '__proto__', 'toString', 'constructor', 42, undefined]) {
      expect(changedUnderfootResult(errno(code)), String(code)).toBeUndefined();
    }
    expect(changedUnderfootResult(null)).toBeUndefined();
    expect(changedUnderfootResult('ENOENT')).toBeUndefined();
  });
});
