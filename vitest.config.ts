import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources, so tests never need a build first.
const conditions = ["@platform/source", "node"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@platform/source"] } },
  test: {
    include: ["{libs,services,deploy,test}/**/src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default"],
  },
});
