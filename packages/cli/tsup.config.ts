import { defineConfig } from 'tsup';
import base from '../../tsup.base.js';

export default defineConfig({
  ...(base as object),
  // The library (runKsadk) and the `ksadk` command (bin/ksadk.mjs runs dist/cli.js).
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
});
