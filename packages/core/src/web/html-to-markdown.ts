/** A page converted for a model to read. */
export interface ConvertedPage {
  /** The page's title, when it has one. */
  readonly title: string | undefined;
  /** Markdown of the main content, or the page's plain text when no main content was found. */
  readonly text: string;
  /** `readability`: main content as markdown; `page_text`: whole-page text (the fallback). */
  readonly extraction: 'readability' | 'page_text';
}

// Minimal structural types of the DOM parts used here (the package compiles without the DOM lib).
interface DomNode {
  readonly textContent: string | null;
  remove(): void;
}
interface DomDocument {
  readonly title: string;
  readonly body: DomNode | null;
  readonly documentElement: DomNode | null;
  querySelectorAll(selector: string): Iterable<DomNode>;
}
type Article = { title?: string | null; content?: unknown; textContent?: string | null } | null;
type Turndown = { turndown(input: unknown): string };

interface Libraries {
  parse(html: string): DomDocument;
  readability(document: DomDocument): Article;
  turndown: Turndown;
}

let libraries: Promise<Libraries> | undefined;

/** Loads linkedom, Readability and turndown once, on first use (never at import time). */
function loadLibraries(): Promise<Libraries> {
  libraries ??= (async () => {
    const [{ parseHTML }, { Readability }, { default: TurndownService }] = await Promise.all([
      import('linkedom'),
      import('@mozilla/readability'),
      import('turndown'),
    ]);
    const service = new TurndownService({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
      emDelimiter: '_',
    });
    service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed']);
    // Inline images as data: URIs are bytes, not text: keep their alt text only.
    service.addRule('dataImages', {
      filter: (node) =>
        node.nodeName === 'IMG' && (node.getAttribute('src') ?? '').startsWith('data:'),
      replacement: (_content, node) => {
        const alt = (node as { getAttribute(name: string): string | null }).getAttribute('alt');
        return alt ? `![${alt}]` : '';
      },
    });
    return {
      parse: (html) => parseHTML(html).document as unknown as DomDocument,
      readability: (document) =>
        // The serializer hands back the element itself: turndown converts it without a re-parse.
        new Readability(document as never, { serializer: (node) => node }).parse() as Article,
      turndown: service as unknown as Turndown,
    };
  })();
  return libraries;
}

const collapseText = (text: string): string => text.replace(/\s+/g, ' ').trim();

const tidyMarkdown = (markdown: string): string =>
  markdown
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/** Pins the document's URL so Readability turns relative links into absolute ones. */
function setDocumentUrl(document: DomDocument, url: string | undefined): void {
  if (!url) return;
  for (const name of ['baseURI', 'documentURI', 'URL'])
    Object.defineProperty(document, name, { value: url, configurable: true });
}

/**
 * Converts an HTML page to what agents read best: the main content (Mozilla Readability over a
 * linkedom document) as markdown (turndown), links made absolute against `url`. When Readability
 * finds no main content, the whole page's text with `script`, `style`, `noscript` and `template`
 * removed and whitespace collapsed. Nothing in the page runs and nothing is fetched.
 * The libraries load on the first call.
 *
 * @example
 * ```ts
 * const page = await htmlToMarkdown('<html><body><article><h1>Hi</h1><p>Text…</p></article></body></html>');
 * console.log(page.extraction, page.text);
 * ```
 */
export async function htmlToMarkdown(html: string, url?: string): Promise<ConvertedPage> {
  const { parse, readability, turndown } = await loadLibraries();
  const document = parse(html);
  setDocumentUrl(document, url);
  const pageTitle = collapseText(document.title ?? '') || undefined;
  let article: Article = null;
  try {
    article = readability(document);
  } catch {
    article = null;
  }
  if (article?.content && collapseText(article.textContent ?? '') !== '') {
    const markdown = tidyMarkdown(turndown.turndown(article.content));
    if (markdown !== '') {
      return {
        title: collapseText(article.title ?? '') || pageTitle,
        text: markdown,
        extraction: 'readability',
      };
    }
  }
  // Readability changes the document it reads: the fallback starts from a fresh parse.
  const fresh = parse(html);
  for (const node of [...fresh.querySelectorAll('script, style, noscript, template')])
    node.remove();
  const root = fresh.body ?? fresh.documentElement;
  return {
    title: pageTitle,
    text: collapseText(root?.textContent ?? ''),
    extraction: 'page_text',
  };
}
