import { defineConfig } from 'tsup';
import base from '../../tsup.base.js';

export default defineConfig({
  ...(base as object),
  // The library, and the `ksadk-console` command (bin/ksadk-console.mjs runs dist/cli.js). The
  // browser app is bundled separately (scripts/build-app.mjs) into dist/app.
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
});
