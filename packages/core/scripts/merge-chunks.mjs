// Runs after tsup (`pnpm build`). esbuild's code splitting gives every distinct set of entries
// that share a module its own chunk: core's twelve entries came out as 60-odd chunks, the root
// entry loading 18 files and the catalogue 40, and a cold import pays about a millisecond per file
// Node loads. Rollup re-bundles the built entries and merges each chunk under MIN_CHUNK_BYTES into
// one loaded under similar conditions (its `experimentalMinChunkSize`): fewer files per import, at
// the price of a few kilobytes loaded a little before they are needed. Source maps are carried
// through to the TypeScript sources; declarations (`.d.ts`) are left as tsup wrote them.
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';

const MIN_CHUNK_BYTES = 24_000;
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(packageDir, 'dist');
const merged = path.join(packageDir, 'dist-merged');

/** The built entries, from the package's exports: `{ 'testing/index': '<dist>/testing/index.js' }`. */
async function builtEntries() {
  const manifest = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8'));
  const entries = {};
  for (const target of Object.values(manifest.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (!file?.startsWith('./dist/') || !file.endsWith('.js')) continue;
    const name = file.slice('./dist/'.length, -'.js'.length);
    entries[name] = path.join(dist, `${name}.js`);
  }
  return entries;
}

/** Every `.js` file (and its map) under a folder, recursively. */
async function scriptsUnder(folder) {
  const found = await readdir(folder, { recursive: true, withFileTypes: true });
  return found
    .filter((entry) => entry.isFile() && /\.js(\.map)?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Loads tsup's output with its source map, so rollup chains the maps back to `src/`. */
const builtFiles = {
  name: 'built-files',
  resolveId(source, importer) {
    if (!importer || !source.startsWith('.')) return importer ? false : source;
    return path.resolve(path.dirname(importer), source);
  },
  async load(id) {
    const code = await readFile(id, 'utf8');
    const map = await readFile(`${id}.map`, 'utf8').catch(() => null);
    return { code, map };
  },
};

const entries = await builtEntries();
// Every script tsup wrote that is not a chunk (`chunk-<hash>.js`, shared code; `<module>-<hash>.js`,
// a module imported on first use) must be an entry: anything else would be dropped.
const HASHED = /-[A-Z0-9]{8}\.js$/;
const unlisted = (await scriptsUnder(dist))
  .filter((file) => file.endsWith('.js') && !HASHED.test(path.basename(file)))
  .filter((file) => !Object.values(entries).includes(file));
if (unlisted.length > 0) {
  throw new Error(
    `merge-chunks: tsup built ${unlisted.map((file) => path.relative(dist, file)).join(', ')}, which package.json "exports" does not list (its "default" condition)`,
  );
}

const bundle = await rollup({
  input: entries,
  plugins: [builtFiles],
  // Our modules are side-effect free (`sideEffects: false`); a dependency is not assumed to be. A
  // chunk with effects is never merged, so no chunk the root entry loads comes to import zod.
  treeshake: { moduleSideEffects: (_id, external) => external },
  preserveEntrySignatures: 'strict',
  logLevel: 'warn',
  onwarn(warning) {
    throw new Error(`merge-chunks: ${warning.message}`);
  },
});
await rm(merged, { recursive: true, force: true });
await bundle.write({
  dir: merged,
  format: 'es',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunk-[hash].js',
  sourcemap: true,
  experimentalMinChunkSize: MIN_CHUNK_BYTES,
});
await bundle.close();

// Replace tsup's scripts with the merged ones; its declarations stay.
for (const file of await scriptsUnder(dist)) await rm(file);
for (const file of await scriptsUnder(merged)) {
  await rename(file, path.join(dist, path.relative(merged, file)));
}
await rm(merged, { recursive: true, force: true });
