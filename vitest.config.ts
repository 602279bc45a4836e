import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The e2e tier has its own config (test/e2e/vitest.config.ts, `npm run test:e2e`).
    exclude: [...configDefaults.exclude, 'test/e2e/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
