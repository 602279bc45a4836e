// The e2e tier: runs against whatever KUBECONFIG points at (the local control plane, or kind in CI).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/support/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // One cluster, one release: the stories run in order, never in parallel.
    fileParallelism: false,
  },
});
