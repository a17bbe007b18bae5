import { describe, expect, it } from 'vitest';
import { visibleText } from './visible-text.js';

describe('visibleText', () => {
  it('shows what would make text read differently as escapes, and leaves readable text alone', () => {
    expect(visibleText('amount=100\u061c,9999')).toBe('amount=100\\u061c,9999');
    expect(visibleText('report\u{E0049}\u{E0067}\u{E006E}.pdf')).toBe(
      'report\\u{e0049}\\u{e0067}\\u{e006e}.pdf',
    );
    expect(visibleText('\u001b]52;c;ZXZpbA==\u0007\u001b[8mhidden\u001b[0m')).toBe(
      '\\u001b]52;c;ZXZpbA==\\u0007\\u001b[8mhidden\\u001b[0m',
    );
    expect(visibleText('a\u00adb \u202egnp.exe \u200b \u2028 \u3164 \u0085')).toBe(
      'a\\u00adb \\u202egnp.exe \\u200b \\u2028 \\u3164 \\u0085',
    );
    expect(visibleText('a\u17b4b\ufe0fc\u034fd\u{e0100}')).toBe(
      'a\\u17b4b\\ufe0fc\\u034fd\\u{e0100}',
    );
    expect(visibleText('line one\n\tline two — é 中文 ☂')).toBe('line one\n\tline two — é 中文 ☂');
  });
});
