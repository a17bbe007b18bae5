// Bundles the console's browser app (app/) into dist/app: one ES module and one stylesheet, no
// inline code, served by the console's handler under its strict content security policy.
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/app`;
await mkdir(out, { recursive: true });
await build({
  absWorkingDir: root,
  entryPoints: ['app/main.ts'],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  outfile: 'dist/app/console.js',
  logLevel: 'warning',
});
await copyFile(`${root}app/console.css`, `${out}/console.css`);
