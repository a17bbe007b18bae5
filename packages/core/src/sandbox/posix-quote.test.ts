import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteShellArg, quoteShellCommand } from './posix-quote.js';

/**
 * What a real shell makes of many quoted argvs, in one shell run (a spawn per case is slow on a
 * loaded machine): the arguments each `printf` receives, split back by the known lengths.
 */
function throughShell(shell: string, argvs: readonly (readonly string[])[]): string[][] {
  const script = argvs.map((argv) => `printf '%s\\0' ${quoteShellCommand(argv)}`).join('\n');
  const out = execFileSync(shell, ['-c', script], { timeout: 20_000, maxBuffer: 64 << 20 });
  const fields = out.toString('utf8').split('\0');
  let at = 0;
  return argvs.map((argv) => {
    const got = fields.slice(at, at + argv.length);
    at += argv.length;
    return got;
  });
}

// Any text a shell argument can hold (NUL cannot be in an argv), weighted to shell syntax.
const hostileText = fc
  .oneof(
    fc.string({ unit: fc.constantFrom(...`'"\\$\`!*?[]{}()<>|&;#~ \t\n\r=,%^@-`.split('')) }),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
  )
  .map((text) => text.replace(/\0/g, ''));

describe('quoteShellCommand', () => {
  it('quotes with single quotes only', () => {
    expect(quoteShellArg("it's")).toBe(`'it'\\''s'`);
    expect(quoteShellCommand(['echo', '$(id)', ''])).toBe(`'echo' '$(id)' ''`);
  });

  for (const shell of ['bash', 'sh']) {
    it(`round-trips any argv through ${shell} byte for byte`, () => {
      const argvs = fc.sample(fc.array(hostileText, { minLength: 1, maxLength: 6 }), 300);
      expect(throughShell(shell, argvs)).toEqual(argvs);
    }, 60_000);
  }
});
