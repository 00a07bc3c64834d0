import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Files that run alone: each loads both cores by itself (ten servers or processes started at once, a million IDs
 * hammered, npm install or an image build) or times a database cluster's failover, so a neighbour would slow it
 * past its bounds. Everything else that starts servers runs two files at a time: most of its time is spent waiting
 * (a server starting on one core, a database, a timer), and two such files fill the two cores.
 */
const SERIAL = [
  'test/integration/stops.test.ts',
  'test/integration/workerIds.test.ts',
  'test/integration/nodeIdentity.test.ts',
  'test/integration/snowflake.test.ts',
  'test/integration/mixedFleet.test.ts',
  'test/integration/galera.test.ts',
  'test/integration/galeraStore.test.ts',
  'test/integration/clientPackage.test.ts',
  'test/integration/container.test.ts',
];

/** Starts processes: stopped when each file ends, whatever the file did. */
const STOP_CHILDREN = ['test/support/stopChildren.ts'];

export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('.', import.meta.url)) } },
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // Alone: five chaos runs, each with its own servers and load on both cores.
        test: {
          name: 'chaos',
          include: ['test/chaos/**/*.test.ts'],
          testTimeout: 200_000,
          hookTimeout: 30_000,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'contract',
          include: ['test/contract/**/*.test.ts'],
          setupFiles: STOP_CHILDREN,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: SERIAL,
          globalSetup: ['test/support/globalSetup.ts'],
          setupFiles: STOP_CHILDREN,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-serial',
          include: SERIAL,
          globalSetup: ['test/support/globalSetup.ts'],
          setupFiles: STOP_CHILDREN,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
