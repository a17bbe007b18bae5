/** What the HTML conversion worker is given: the libraries' CommonJS entries, resolved by the main thread. */
export interface HtmlWorkerData {
  readonly linkedomPath: string;
  readonly readabilityPath: string;
  readonly turndownPath: string;
  /** Pages with more tags, comments and attributes than this are refused before parsing. */
  readonly maxNodes: number;
}

/** One page to convert. */
export interface HtmlWorkerRequest {
  readonly id: number;
  readonly html: string;
  readonly url: string | undefined;
}

/** A page the worker converted (see `ConvertedPage`). */
export interface WorkerPage {
  readonly title: string | undefined;
  readonly text: string;
  readonly extraction: 'readability' | 'page_text';
}

/** The worker's answer to the request with the same `id`. */
export type HtmlWorkerReply =
  | { readonly id: number; readonly page: WorkerPage }
  | { readonly id: number; readonly tooLarge: true }
  | { readonly id: number; readonly error: string };

/** The worker's side of its message port. */
export interface HtmlWorkerPort {
  on(event: 'message', listener: (request: HtmlWorkerRequest) => void): unknown;
  postMessage(reply: HtmlWorkerReply): void;
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

/**
 * The body of the HTML conversion worker: loads linkedom, Readability and turndown once, then
 * converts each page it is sent, unless the page would make more than `maxNodes` DOM nodes: that
 * is refused (`tooLarge`) before any parsing, because a parse past the thread's heap limit can abort
 * the whole process, not just the thread (nodejs/node#47224). It runs on its own thread (its source is sent to a `Worker` with
 * `eval`), so it must be self-contained: no imports, no outer names — everything comes in as
 * parameters. A page whose conversion throws (a stack overflow on deep nesting, say) is answered
 * with `error`; the thread stays usable.
 */
export function runHtmlWorker(
  data: HtmlWorkerData,
  port: HtmlWorkerPort,
  load: (id: string) => unknown,
): void {
  const { parseHTML } = load(data.linkedomPath) as typeof import('linkedom');
  const { Readability } = load(data.readabilityPath) as typeof import('@mozilla/readability');
  const TurndownService = load(data.turndownPath) as typeof import('turndown');
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
  const parse = (html: string): DomDocument => parseHTML(html).document as unknown as DomDocument;
  const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();
  const tidy = (markdown: string): string =>
    markdown
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();

  // An upper bound of the DOM nodes a parse would make, by one linear scan: tags, comments and
  // attributes (a quoted value counts once). Text nodes are at most one more than tags.
  const countNodes = (html: string): number => {
    let count = 0;
    let inTag = false;
    let gap = false;
    let afterEquals = false;
    for (let index = 0; index < html.length; index += 1) {
      const code = html.charCodeAt(index);
      if (!inTag) {
        if (code !== 60 /* < */) continue;
        const next = html.charCodeAt(index + 1) | 32;
        if (next === 33 /* ! */ || next === 63 /* ? */) count += 1;
        else if (next >= 97 && next <= 122) {
          count += 1;
          inTag = true;
          gap = false;
          afterEquals = false;
        }
        continue;
      }
      if (code === 62 /* > */) inTag = false;
      else if (afterEquals && (code === 34 || code === 39) /* " ' */) {
        const close = html.indexOf(code === 34 ? '"' : "'", index + 1);
        index = close === -1 ? html.length : close;
        afterEquals = false;
      } else if (code === 61 /* = */) {
        afterEquals = true;
        gap = false;
      } else if (code <= 32 || code === 47 /* / */) {
        if (!afterEquals) gap = true;
      } else {
        afterEquals = false;
        if (gap) count += 1;
        gap = false;
      }
    }
    return count;
  };

  const convert = (html: string, url: string | undefined): WorkerPage => {
    const document = parse(html);
    // Pins the document's URL so Readability turns relative links into absolute ones.
    if (url)
      for (const name of ['baseURI', 'documentURI', 'URL'])
        Object.defineProperty(document, name, { value: url, configurable: true });
    const pageTitle = collapse(document.title ?? '') || undefined;
    let article: Article = null;
    try {
      // The serializer hands back the element itself: turndown converts it without a re-parse.
      article = new Readability(document as never, {
        serializer: (node) => node,
      }).parse() as Article;
    } catch {
      article = null;
    }
    if (article?.content && collapse(article.textContent ?? '') !== '') {
      const markdown = tidy(service.turndown(article.content as string));
      if (markdown !== '')
        return {
          title: collapse(article.title ?? '') || pageTitle,
          text: markdown,
          extraction: 'readability',
        };
    }
    // Readability changes the document it reads: the fallback starts from a fresh parse.
    const fresh = parse(html);
    for (const node of [...fresh.querySelectorAll('script, style, noscript, template')])
      node.remove();
    const root = fresh.body ?? fresh.documentElement;
    return { title: pageTitle, text: collapse(root?.textContent ?? ''), extraction: 'page_text' };
  };

  port.on('message', (request) => {
    let reply: HtmlWorkerReply;
    try {
      reply =
        countNodes(request.html) > data.maxNodes
          ? { id: request.id, tooLarge: true }
          : { id: request.id, page: convert(request.html, request.url) };
    } catch (error) {
      reply = { id: request.id, error: String((error as Error | undefined)?.message ?? error) };
    }
    port.postMessage(reply);
  });
}
