/**
 * Characters that would change how text reads rather than what it says: controls other than
 * newline and tab (a terminal's escape sequences among them), format characters (bidirectional
 * marks, overrides and isolates, zero-width marks, the Arabic letter mark, soft hyphens, Unicode
 * tags that hide a whole sentence), line and paragraph separators, and the blank letters and
 * variation selectors that show as nothing.
 */
// Marks that combine with what precedes them (the grapheme joiner, Khmer inherent vowels,
// variation selectors) are alternatives of their own, never in a class beside other characters.
const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u180e\u2800\u3164\uffa0]|\u034f|\u17b4|\u17b5|[\ufe00-\ufe0f]|[\u{e0100}-\u{e01ef}]/gu;

/**
 * Text as a person should read it — in an approval dialog, on a terminal: every invisible,
 * direction-changing or control character (but newline and tab) shown as its `\uXXXX` escape
 * (`\u{XXXXX}` beyond the basic plane), so what a model, a server or a file wrote cannot make it
 * read differently from what it is, or drive the terminal showing it.
 *
 * @example
 * ```ts
 * visibleText('amount=100\u061c,9999'); // 'amount=100\\u061c,9999'
 * ```
 */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (char) => {
    if (char === '\n' || char === '\t') return char;
    const code = char.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
