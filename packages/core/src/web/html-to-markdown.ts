import { htmlToText } from './html-to-text.js';
import { convertInWorker, type HtmlConversionFailure } from './html-worker-pool.js';

export type { HtmlConversionFailure } from './html-worker-pool.js';

/** A page converted for a model to read. */
export interface ConvertedPage {
  /** The page's title, when it has one. */
  readonly title: string | undefined;
  /** Markdown of the main content, or the page's plain text when no main content was found. */
  readonly text: string;
  /**
   * `readability`: main content as markdown; `page_text`: whole-page text (Readability found no
   * main content); `stripped_text`: the page's text with its tags stripped, read without a DOM,
   * because the conversion did not finish (see `fallbackReason`).
   */
  readonly extraction: 'readability' | 'page_text' | 'stripped_text';
  /**
   * Only with `stripped_text`: `deadline` (the conversion ran out of time), `aborted` (the signal
   * fired), `too_large` (over 250,000 tags, comments and attributes: refused before parsing) or
   * `failed` (the conversion threw, or its thread ran out of memory or crashed).
   */
  readonly fallbackReason?: HtmlConversionFailure;
}

/** Options of {@link htmlToMarkdown}. */
export interface HtmlToMarkdownOptions {
  /**
   * Wall-clock limit of the conversion; past it the page comes back as `stripped_text`.
   * @default 20,000 ({@link DEFAULT_HTML_CONVERSION_DEADLINE_MS})
   */
  readonly deadlineMs?: number;
  /** Stops the conversion: the page comes back as `stripped_text`. */
  readonly signal?: AbortSignal;
}

/**
 * The conversion time limit when the caller gives none. A 5 MB article page (about the default
 * body cap of `web_fetch`) converts in about 13 s on a slow two-core machine, a 1 MB one in 2 s;
 * hostile pages of a few hundred KiB would take minutes or hours, and stop here. `web_fetch`
 * gives instead what is left of its `timeout` after the fetch (at least 2 s).
 */
export const DEFAULT_HTML_CONVERSION_DEADLINE_MS = 20_000;

/**
 * Converts an HTML page to what agents read best: the main content (Mozilla Readability over a
 * linkedom document) as markdown (turndown), links made absolute against `url`. When Readability
 * finds no main content, the whole page's text with `script`, `style`, `noscript` and `template`
 * removed and whitespace collapsed (`page_text`). Nothing in the page runs and nothing is fetched.
 *
 * The conversion runs on a worker thread (the libraries load there, never in the caller's thread),
 * so no page can stall the event loop. Every page goes there, small ones too, by measurement: a
 * 10 KiB page of 2,000 nested `div`s took 3.2 s on the main thread, so no size threshold makes
 * main-thread conversion safe; loading the libraries there blocked for 450 ms on first use; and a
 * warm thread converts a 1–4 KB page in 7–8 ms, as fast as the main thread did (one thread is
 * kept idle for the next page). At the deadline or on abort the thread is terminated; then, or for
 * a page over 250,000 nodes, or when the conversion throws or its thread runs out of memory or
 * crashes (twice: a thread that died is replaced once), the page comes back as `stripped_text` (tags stripped by a linear scan on this thread,
 * in chunks that yield to the event loop) with `fallbackReason`. Never rejects.
 *
 * @example
 * ```ts
 * const page = await htmlToMarkdown('<html><body><article><h1>Hi</h1><p>Text…</p></article></body></html>');
 * console.log(page.extraction, page.text);
 * const bounded = await htmlToMarkdown(html, url, { deadlineMs: 5_000, signal });
 * ```
 */
export async function htmlToMarkdown(
  html: string,
  url?: string,
  options: HtmlToMarkdownOptions = {},
): Promise<ConvertedPage> {
  const deadline = Date.now() + (options.deadlineMs ?? DEFAULT_HTML_CONVERSION_DEADLINE_MS);
  const convert = () =>
    convertInWorker(html, url, { deadlineMs: deadline - Date.now(), signal: options.signal });
  let outcome = await convert();
  // A thread that died or could not start (a loaded machine, a transient resource limit) gets
  // one more try on a fresh thread, within the same deadline.
  if (!outcome.ok && outcome.crashed && Date.now() < deadline && !options.signal?.aborted)
    outcome = await convert();
  if (outcome.ok) return outcome.page;
  const stripped = await htmlToText(html);
  return { ...stripped, extraction: 'stripped_text', fallbackReason: outcome.reason };
}
