import { defineConfig } from 'tsup';
import base from '../../tsup.base.js';

export default defineConfig({
  ...(base as object),
  // The testing fakes live on their own subpath so the root entry stays cheap.
  entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
});
