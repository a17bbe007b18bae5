/**
 * Line rules used by every workspace tool (and by ripgrep, so both search backends agree): a
 * line ends at `\n`; a `\r` right before it belongs to the line ending. A lone `\r`, `\v`,
 * `\f`, U+0085, U+2028 and U+2029 do **not** end a line. A final line ending does not start an
 * extra empty line.
 */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  // Most text has no \r at all: no second array.
  if (!text.includes('\r')) return lines;
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}
