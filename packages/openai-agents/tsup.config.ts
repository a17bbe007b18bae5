import { defineConfig } from 'tsup';
import base from '../../tsup.base.js';

export default defineConfig({
  ...(base as object),
  // Scripted models for offline agents and tests live on their own subpath.
  entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
});
