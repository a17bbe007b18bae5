import { mergeConfig } from 'vitest/config';
import { adapterVitestConfig } from '../../vitest.adapter.js';

export default mergeConfig(adapterVitestConfig('@ksadk/postgres'), {
  test: { globalSetup: ['./vitest.global-setup.mjs'], hookTimeout: 30_000 },
});
