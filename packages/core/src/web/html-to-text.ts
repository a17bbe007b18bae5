/** A page's text, read without a DOM. */
export interface StrippedPage {
  /** The first `<title>`'s text, when there is one. */
  readonly title: string | undefined;
  /** The text, tags stripped, whitespace collapsed, one line per block element. */
  readonly text: string;
}

/**
 * Characters scanned between two yields to the event loop: about a millisecond of work. Text and
 * tags are cut at this size too; a comment or skipped element is crossed by one native search.
 */
const CHUNK_CHARS = 16 * 1024;

/** The most of a `<title>` read (an unclosed one would run to the end of the page). */
const MAX_TITLE_CHARS = 4096;

/** Elements whose content is never text: skipped up to their end tag (or the end of the page). */
const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'noembed',
  'noframes',
  'xmp',
  'title',
]);

/** Elements that start a new line. */
const BLOCKS = new Set(
  'address article aside blockquote br dd details dialog div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody thead tfoot tr td th ul'.split(
    ' ',
  ),
);

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™',
  times: '×',
  euro: '€',
};

// Bounded repetitions, no nesting: linear time on any input.
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,8}));/g;
const SPACES = /\s+/g;

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return ENTITIES[name] ?? whole;
    const code = decimal !== undefined ? Number(decimal) : Number.parseInt(hex ?? '', 16);
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return valid ? String.fromCodePoint(code) : '\ufffd';
  });
}

const isLetter = (code: number): boolean =>
  (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

// All native, all linear: a tag name; an attribute value's opening quote.
const TAG_NAME = /[^\t\n\f\r />]*/y;
const QUOTED_VALUE = /=[\t\n\f\r ]*["']/g;

/**
 * Finds where tags end, quoted attribute values honoured (`<p title="a>b">`), with native
 * searches only. The next `>` and the next `="` or `='` are remembered, so no search goes over the
 * same text twice: linear over the whole page however many tags and attributes it has.
 */
class TagEnds {
  private closeAt = -2;
  private quoteAt = -2;
  private quoteLength = 0;

  constructor(private readonly html: string) {}

  /**
   * Index just past the `>` ending the tag whose attributes start at `from` (or the page's end).
   * When the scan passes `pauseAt` first, `-(where to resume) - 1`: call again from there.
   */
  after(from: number, pauseAt: number): number {
    const { html } = this;
    let index = from;
    for (;;) {
      if (index > pauseAt) return -index - 1;
      if (this.closeAt !== -1 && this.closeAt < index) this.closeAt = html.indexOf('>', index);
      if (this.closeAt === -1) return html.length;
      if (this.quoteAt !== -1 && this.quoteAt < index) {
        QUOTED_VALUE.lastIndex = index;
        const match = QUOTED_VALUE.exec(html);
        this.quoteAt = match ? match.index : -1;
        this.quoteLength = match ? match[0].length : 0;
      }
      if (this.quoteAt === -1 || this.quoteAt > this.closeAt) return this.closeAt + 1;
      const valueStart = this.quoteAt + this.quoteLength;
      const end = html.indexOf(html[valueStart - 1] as string, valueStart);
      if (end === -1) return html.length;
      index = end + 1;
    }
  }
}

const closers = new Map<string, RegExp>();

/** Index of the end tag `</name` at or after `from`, or -1. */
function findEndTag(html: string, name: string, from: number): number {
  let pattern = closers.get(name);
  if (!pattern) {
    pattern = new RegExp(`</${name}(?=[\\s/>])`, 'gi');
    closers.set(name, pattern);
  }
  pattern.lastIndex = from;
  return pattern.exec(html)?.index ?? -1;
}

/** Builds the text: collapsed spaces inside a line, one newline between blocks. */
class TextSink {
  private readonly parts: string[] = [];
  private space = false;
  private newline = false;

  text(raw: string): void {
    let text = decodeEntities(raw).replace(SPACES, ' ');
    if (text === '') return;
    if (text.startsWith(' ')) {
      this.space = true;
      text = text.slice(1);
    }
    const trailing = text.endsWith(' ');
    if (trailing) text = text.slice(0, -1);
    if (text === '') return;
    if (this.parts.length > 0) {
      if (this.newline) this.parts.push('\n');
      else if (this.space) this.parts.push(' ');
    }
    this.parts.push(text);
    this.newline = false;
    this.space = trailing;
  }

  block(): void {
    this.newline = true;
  }

  result(): string {
    return this.parts.join('');
  }
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Where to cut text that goes on past `end`: at `end`, or before an entity that `end` would split. */
function textCut(html: string, end: number): number {
  // The longest entity decoded, `&#x10FFFF;`, has 10 characters.
  const amp = html.slice(end - 10, end).lastIndexOf('&');
  return amp === -1 ? end : end - 10 + amp;
}

/** Where the text starting at `from` ends: the next `<` that starts a tag, a comment or a declaration. */
function textEnd(html: string, from: number, limit: number): number {
  let index = from;
  while (index < limit) {
    const open = html.indexOf('<', index);
    if (open === -1 || open >= limit) return limit;
    const next = html.charCodeAt(open + 1);
    if (next === 33 /* ! */ || next === 63 /* ? */ || isLetter(next)) return open;
    if (next === 47 /* / */ && isLetter(html.charCodeAt(open + 2))) return open;
    index = open + 1;
  }
  return limit;
}

/**
 * The cheap fallback for a page that could not be converted in time: its text, read by one
 * linear scan with no DOM and no backtracking regex. Comments and `script`, `style`, `noscript`,
 * `template`, `iframe` and `title` contents are dropped (the first title is returned apart), tags
 * are stripped, block elements start a line, whitespace is collapsed and the common entities
 * decoded. The scan yields to the event loop every 16 Ki characters, so even a page of many
 * megabytes never holds the loop for more than a few milliseconds at a time (a comment or a
 * skipped element is crossed by one native search: about a millisecond per megabyte).
 *
 * @example
 * ```ts
 * const { title, text } = await htmlToText('<title>T</title><p>a &amp; b</p><script>x()</script>');
 * // title === 'T', text === 'a & b'
 * ```
 */
export async function htmlToText(html: string): Promise<StrippedPage> {
  const sink = new TextSink();
  const tags = new TagEnds(html);
  let title: string | undefined;
  let index = 0;
  let nextYield = CHUNK_CHARS;
  /** Past the end of the tag whose attributes start at `from`, yielding in a long one. */
  const tagEnd = async (from: number): Promise<number> => {
    let end = tags.after(from, nextYield);
    while (end < 0) {
      await yieldToLoop();
      nextYield = -end - 1 + CHUNK_CHARS;
      end = tags.after(-end - 1, nextYield);
    }
    return end;
  };
  while (index < html.length) {
    if (index >= nextYield) {
      await yieldToLoop();
      nextYield = index + CHUNK_CHARS;
    }
    // Text (a `<` that starts no tag is text too) goes out in chunks.
    const limit = Math.min(html.length, index + CHUNK_CHARS);
    const end = textEnd(html, index, limit);
    if (end > index) {
      const cut = end === limit && limit < html.length ? textCut(html, end) : end;
      sink.text(html.slice(index, cut));
      index = cut;
      continue;
    }
    if (html.startsWith('<!--', index)) {
      const close = html.indexOf('-->', index + 4);
      index = close === -1 ? html.length : close + 3;
      continue;
    }
    const next = html.charCodeAt(index + 1);
    if (next === 33 /* ! */ || next === 63 /* ? */) {
      const close = html.indexOf('>', index + 2);
      index = close === -1 ? html.length : close + 1;
      continue;
    }
    const closing = next === 47; /* / */
    const nameStart = index + (closing ? 2 : 1);
    TAG_NAME.lastIndex = nameStart;
    TAG_NAME.test(html);
    const nameEnd = TAG_NAME.lastIndex;
    // Only short names matter here; a longer one is kept short, not copied.
    const name = html.slice(nameStart, Math.min(nameEnd, nameStart + 16)).toLowerCase();
    index = await tagEnd(nameEnd);
    if (BLOCKS.has(name)) sink.block();
    if (closing || !SKIPPED.has(name)) continue;
    const close = findEndTag(html, name, index);
    if (name === 'title' && title === undefined) {
      const titleEnd = Math.min(close === -1 ? html.length : close, index + MAX_TITLE_CHARS);
      const text = decodeEntities(html.slice(index, titleEnd));
      title = text.replace(SPACES, ' ').trim() || undefined;
    }
    index = close === -1 ? html.length : await tagEnd(close + 2 + name.length);
  }
  return { title, text: sink.result() };
}
