import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * One project per folder of test/ (docs/testing.md#the-two-tiers). `npm test` runs unit, contract, integration and
 * serial; `npm run test:cluster` runs cluster. Files in contract/ and integration/ mostly wait (a server starting on
 * one core, a database, a timer), so two run at a time; serial/ and cluster/ files each load both cores by themselves
 * (ten servers at once, npm installs, a database cluster, the chaos runs), so they run one at a time, after the rest.
 */

/** Starts processes: stopped when each file ends, whatever the file did. */
const STOP_CHILDREN = ['test/support/stopChildren.ts'];
/** One throwaway MariaDB and one PostgreSQL for the run, shared by every project that uses them. */
const DATABASES = ['test/support/globalSetup.ts'];

export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('.', import.meta.url)) } },
  test: {
    reporters: ['default', './test/support/fileTimesReporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'contract',
          include: ['test/contract/**/*.test.ts'],
          // Every answer a contract test receives is checked against the API description (docs/openapi.json).
          setupFiles: [...STOP_CHILDREN, 'test/support/openapiContract.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: DATABASES,
          setupFiles: STOP_CHILDREN,
          testTimeout: 180_000,
          hookTimeout: 180_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'serial',
          include: ['test/serial/**/*.test.ts'],
          globalSetup: DATABASES,
          setupFiles: STOP_CHILDREN,
          testTimeout: 240_000,
          hookTimeout: 240_000,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          globalSetup: DATABASES,
          setupFiles: STOP_CHILDREN,
          testTimeout: 300_000,
          hookTimeout: 300_000,
          maxWorkers: 1,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
