import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests start real tofu processes and a real Host; give them room.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The e2e files each start their own Host and tofu; two cores, so keep it modest.
    fileParallelism: true,
    maxWorkers: 2,
    minWorkers: 1,
  },
});
