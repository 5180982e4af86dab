import { loadConfigOrExit, postgresVars, vars } from "@platform/config";
import { connectHistory, migrateHistory } from "@platform/history";
import { createLogger } from "@platform/log";
import { z } from "zod";

/*
 * The history schema's migrations (libs/history), run once per release before the projector and
 * data-query start: `node dist/migrate.js`, the Kubernetes Job's command (the local stack calls
 * migrateHistory itself). It connects as the schema's owner (`history_owner`), whose credentials the
 * Job's Secret gives; no service's role may change the schema. Steps already applied are skipped,
 * and two runs at once apply each step once (an advisory lock), so a retried Job is harmless.
 * Exit 0 once the schema is current, 1 when it could not be (the reason logged), 78 on bad
 * configuration (one line naming the variable, like every service).
 */
const migrateConfigSchema = z.object({
  POSTGRES_URL: postgresVars.POSTGRES_URL,
  POSTGRES_USERNAME: postgresVars.POSTGRES_USERNAME,
  POSTGRES_PASSWORD: postgresVars.POSTGRES_PASSWORD,
  LOG_LEVEL: vars.logLevel().default("info"),
});

const config = loadConfigOrExit("projector-migrate", migrateConfigSchema);
const log = createLogger({ service: "projector", level: config.LOG_LEVEL }).child({ job: "migrate" });
const db = connectHistory({
  url: config.POSTGRES_URL,
  username: config.POSTGRES_USERNAME,
  password: config.POSTGRES_PASSWORD,
  max: 1,
  applicationName: "projector-migrate",
});

try {
  const { applied, version } = await migrateHistory(db);
  log.info(
    { applied, version },
    applied.length === 0
      ? `history schema already at version ${version}`
      : `history schema migrated to version ${version} (applied ${applied.join(", ")})`,
  );
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  log.error({ err: error }, `history migration failed: ${reason}`);
  process.exitCode = 1;
} finally {
  await db.end({ timeout: 5 }).catch(() => undefined);
}
