// The test tiers as vitest projects: `unit` needs nothing running (`npm run test:unit` on a bare
// clone), `integration` runs against real PostgreSQL, Redis, Kubernetes and the test embedder, which
// its global setup checks for. `npm test` runs both; e2e has its own config (test/e2e/vitest.config.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
