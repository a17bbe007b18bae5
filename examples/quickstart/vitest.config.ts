import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: '@ksadk-examples/quickstart', include: ['src/**/*.test.ts'], testTimeout: 20_000 },
});
