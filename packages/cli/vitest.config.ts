import { mergeConfig } from 'vitest/config';
import { adapterVitestConfig } from '../../vitest.adapter.js';

// The tests run the built `ksadk` command as a child process, against Redis and PostgreSQL.
export default mergeConfig(adapterVitestConfig('@ksadk/cli'), {
  test: { globalSetup: ['./vitest.global-setup.mjs'], hookTimeout: 60_000, testTimeout: 60_000 },
});
