import { describe, expect, it } from 'vitest';
import { filesystemErrorResult } from './filesystem-errors.js';

const errno = (code: unknown) =>
  Object.assign(new Error(`${String(code)}: no such file, stat '/srv/secret-root/acme/x'`), {
    code,
  });

describe('filesystemErrorResult', () => {
  it('maps the errors of a tree changed mid-call, permissions and a full disk to what they mean, naming no path', () => {
    for (const [code, type] of [
      ['ENOENT', 'not_found'],
      ['EEXIST', 'already_exists'],
      ['ENOTDIR', 'not_a_directory'],
      ['EISDIR', 'is_a_directory'],
      ['ENOTEMPTY', 'directory_not_empty'],
      ['EACCES', 'permission_denied'],
      ['EPERM', 'permission_denied'],
      ['EROFS', 'permission_denied'],
      ['ENOSPC', 'no_space_left'],
      ['EDQUOT', 'no_space_left'],
    ] as const) {
      const result = filesystemErrorResult(errno(code));
      expect(result, code).toMatchObject({ ok: false, error_type: type });
      expect(result!.error_message).not.toContain('/srv');
      if (type === 'not_found' || type === 'already_exists')
        expect(result!.error_message).toContain('the workspace changed while the tool ran');
    }
  });

  it('leaves every other error to the gateway, including codes named like Object members', () => {
    for (const code of ['EIO', 'EMFILE', '__proto__', 'toString', 'constructor', 42, undefined]) {
      expect(filesystemErrorResult(errno(code)), String(code)).toBeUndefined();
    }
    expect(filesystemErrorResult(null)).toBeUndefined();
    expect(filesystemErrorResult('ENOENT')).toBeUndefined();
  });
});
