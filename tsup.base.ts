import { defineConfig } from 'tsup';

/** The one build configuration every package uses: ESM, Node 20, declarations, source maps. */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  treeshake: true,
});
