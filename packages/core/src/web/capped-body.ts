import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { BodyReadError, readBodyAtMost } from '../util/body-limit.js';
import { charsetOf } from './content-kind.js';

/** A body read up to a byte cap. */
export interface CappedBody {
  /** The (decompressed) bytes read, at most the cap. */
  readonly bytes: Buffer;
  /** True when the body went on past the cap and was cut there. */
  readonly truncated: boolean;
}

/** Thrown for a `Content-Encoding` this reader does not decode. */
export class UnsupportedEncodingError extends Error {
  constructor(readonly encoding: string) {
    super(`unsupported content encoding: ${encoding.slice(0, 40)}`);
    this.name = 'UnsupportedEncodingError';
  }
}

function decoderFor(encoding: string): NodeJS.ReadWriteStream | undefined {
  switch (encoding) {
    case '':
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new UnsupportedEncodingError(encoding);
  }
}

/**
 * Reads a response body, decompressing gzip, deflate and brotli, and stops at `maxBytes` of
 * decompressed data: the rest is never read (the stream is destroyed), so a huge or endless body
 * or a decompression bomb costs at most the cap.
 */
export async function readCappedBody(
  body: Readable,
  contentEncoding: string,
  maxBytes: number,
): Promise<CappedBody> {
  const encoding = contentEncoding.trim().toLowerCase();
  const decoder = decoderFor(encoding);
  const source: AsyncIterable<Buffer> = decoder
    ? (body.pipe(decoder as NodeJS.WritableStream) as unknown as Readable)
    : body;
  if (decoder) body.once('error', (error) => (decoder as unknown as Readable).destroy(error));
  try {
    const read = await readBodyAtMost(source, maxBytes);
    return { bytes: read.bytes, truncated: read.truncated };
  } catch (error) {
    // The page's own error (a reset, a zlib error) is what the model is told about.
    throw error instanceof BodyReadError ? error.cause : error;
  } finally {
    body.on('error', () => undefined);
    body.destroy();
    (decoder as unknown as Readable | undefined)?.destroy();
  }
}

const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)/i;

/**
 * Decodes body bytes as text: the `Content-Type` charset, else (for HTML) a `<meta charset>` in the
 * first 2 KiB, else UTF-8. A body cut at the cap drops its incomplete last character.
 */
export function decodeBody(
  bytes: Buffer,
  contentType: string,
  html: boolean,
  truncated: boolean,
): string {
  let label = charsetOf(contentType);
  if (!label && html) label = META_CHARSET.exec(bytes.subarray(0, 2048).toString('latin1'))?.[1];
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(label ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes, { stream: truncated });
}
