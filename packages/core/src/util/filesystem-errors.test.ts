import { describe, expect, it } from 'vitest';
import { hostLimitResult } from './filesystem-errors.js';

const errno = (code: unknown) =>
  Object.assign(new Error(`${String(code)}: no such file, stat '/srv/secret-root/acme/x'`), {
    code,
  });

describe('hostLimitResult', () => {
  it('hostLimitResult finds the errno a few causes down, and stops at a cycle or a throwing getter', () => {
    const wrapped = new Error('setup failed', {
      cause: new Error('write failed', { cause: errno('ENOSPC') }),
    });
    expect(hostLimitResult(wrapped, 'the sandbox')).toMatchObject({
      error_type: 'no_space_left',
      error_message: 'the disk holding the sandbox is full',
    });
    const cyclic: { cause?: unknown } = new Error('a');
    cyclic.cause = cyclic;
    expect(hostLimitResult(cyclic, 'x')).toBeUndefined();
    const hostile = Object.defineProperty(new Error('b'), 'cause', {
      get() {
        throw new Error('no');
      },
    });
    expect(hostLimitResult(hostile, 'x')).toBeUndefined();
    expect(hostLimitResult(errno('ENOENT'), 'x')).toBeUndefined();
  });
});
