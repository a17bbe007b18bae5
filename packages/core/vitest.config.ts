import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: '@ksadk/core',
    include: ['src/**/*.test.ts'],
    restoreMocks: true,
    unstubEnvs: true,
  },
});
