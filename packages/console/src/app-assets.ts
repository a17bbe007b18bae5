import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KsadkError } from '@ksadk/core';
import { headersFor } from './http-kit.js';

/** The browser app's files: the only static files the console serves, read once into memory. */
const FILES: Readonly<Record<string, string>> = {
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
};

/** The built app's folder: `dist/app` beside the built module, or the package's own when run from source. */
function defaultDir(): string {
  const here = import.meta.url;
  return fileURLToPath(new URL(here.includes('/src/') ? '../dist/app/' : './app/', here));
}

/** The app's files, by name. */
export type AppAssets = ReadonlyMap<string, { readonly body: Uint8Array; readonly type: string }>;

/**
 * Reads the built app (`console.js`, `console.css`) once.
 *
 * @throws {KsadkError} `setup` when the app was not built (`pnpm --filter @ksadk/console build`).
 */
export function loadAppAssets(dir: string = defaultDir()): AppAssets {
  const assets = new Map<string, { body: Uint8Array; type: string }>();
  for (const [name, type] of Object.entries(FILES)) {
    try {
      assets.set(name, { body: readFileSync(`${dir}/${name}`), type });
    } catch {
      throw new KsadkError(
        'setup',
        `The console's browser app is missing (${name}); build @ksadk/console first.`,
      );
    }
  }
  return assets;
}

/** The answer for `app/<name>`, or `undefined` for any other name. */
export function assetResponse(assets: AppAssets, name: string): Response | undefined {
  const asset = assets.get(name);
  if (!asset) return undefined;
  return new Response(asset.body, {
    headers: headersFor(asset.type, { 'cache-control': 'no-cache' }),
  });
}

const escapeAttribute = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The one HTML page: the app's script and stylesheet, and the page token in a `<meta>` (no
 * inline script anywhere). Paths are relative, so the console works wherever it is mounted.
 */
export function shellPage(csrfToken: string, who: string): Response {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="ksadk-csrf" content="${escapeAttribute(csrfToken)}">
<meta name="ksadk-principal" content="${escapeAttribute(who)}">
<title>KsADK console</title>
<link rel="stylesheet" href="app/console.css">
<script type="module" src="app/console.js"></script>
</head>
<body>
<div id="app"><p class="boot">Loading the KsADK console…</p></div>
</body>
</html>
`;
  return new Response(html, { headers: headersFor('text/html; charset=utf-8') });
}
