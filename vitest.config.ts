import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources, so tests never need a build first.
const conditions = ["@platform/source", "node"];
const shared = {
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@platform/source"] } },
};
const exclude = ["**/node_modules/**", "**/dist/**"];

/*
 * Two groups, one after the other:
 * - unit and integration together. Unit is every `*.test.ts` beside the code that starts no
 *   external server (in-process HTTP and gRPC servers on loopback are fine): `scripts/test --unit`
 *   runs it alone, in about a minute. Its files share each worker's module cache (isolate: false:
 *   none of them changes a module's state for the next; 86 s -> 66 s measured, most of the
 *   difference being imports). Integration is `*.int.test.ts`, which start real Kafka, Redis, NATS,
 *   anvil, chopsticks or kubectl through libs/testing, each on free ports in its own temp folders.
 *   Those mostly wait on their servers, so the unit files run in that idle CPU rather than before;
 * - e2e: test/e2e, each file a whole stack, two at a time: a stack keeps one core about 70 % busy
 *   (measured: 140 % CPU for the data API file alone on 2 cores), so two files overlap their waits
 *   on chains, Kafka and blocks; every stack has its own free ports and folders.
 */
const sourceTests = "{libs,services,deploy}/**/src/**/*.test.ts";
const integrationTests = "{libs,services,deploy}/**/src/**/*.int.test.ts";

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
          name: "unit",
          include: [sourceTests],
          exclude: [...exclude, integrationTests],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        ...shared,
        test: {
          name: "integration",
          include: [integrationTests],
          exclude,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        ...shared,
        test: {
          name: "e2e",
          include: ["test/**/src/**/*.test.ts", "test/**/*.test.ts"],
          exclude,
          // Every answer of the suite held against the gateway's document (answerConformance).
          setupFiles: ["test/e2e/src/support/conformanceSetup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
