import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources, so tests never need a build first.
const conditions = ["@platform/source", "node"];
const shared = {
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@platform/source"] } },
};
const exclude = ["**/node_modules/**", "**/dist/**"];

/*
 * Two groups, one after the other. Unit and integration tests (each starts its own servers on free
 * ports and its own temp folders) run two files at a time: they mostly wait on Kafka, Redis, anvil
 * and chopsticks, so two fill the 2-core machine (vitest's default is one fewer worker than cores).
 * End-to-end tests start a whole stack each and run one at a time after them.
 */
export default defineConfig({
  ...shared,
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default"],
    projects: [
      {
        ...shared,
        test: {
          name: "integration",
          include: ["{libs,services,deploy}/**/src/**/*.test.ts"],
          exclude,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        ...shared,
        test: {
          name: "e2e",
          include: ["test/**/src/**/*.test.ts", "test/**/*.test.ts"],
          exclude,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
