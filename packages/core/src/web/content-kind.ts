/** What kind of text a response holds, from its `Content-Type`. */
export type ContentKind = 'html' | 'markdown' | 'json' | 'xml' | 'text';

const TEXT_APPLICATIONS = new Set([
  'application/javascript',
  'application/x-javascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-ndjson',
  'application/csv',
]);

/** The media type of a `Content-Type` value, lower case, without parameters. */
export function mediaTypeOf(contentType: string): string {
  return contentType.split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * The kind of a response: HTML, markdown, JSON, XML (RSS and Atom included) or other text.
 * `undefined` for anything else (images, PDFs, archives, octet streams): `web_fetch` refuses those.
 */
export function contentKindOf(contentType: string): ContentKind | undefined {
  const type = mediaTypeOf(contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'text/markdown' || type === 'text/x-markdown') return 'markdown';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  if (type.startsWith('text/') || TEXT_APPLICATIONS.has(type)) return 'text';
  return undefined;
}

/** The `charset` parameter of a `Content-Type` value. */
export function charsetOf(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  return match?.[1]?.toLowerCase();
}

/**
 * Guesses the kind of a response without a `Content-Type` from its first bytes: NUL bytes mean
 * binary (`undefined`); a leading `<!doctype html` or `<html` means HTML; anything else is text.
 */
export function sniffContentKind(head: Uint8Array): ContentKind | undefined {
  const sample = head.subarray(0, 1024);
  if (sample.includes(0)) return undefined;
  const start = Buffer.from(sample).toString('latin1').trimStart().slice(0, 64).toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html') ? 'html' : 'text';
}
