import { loadConfigOrExit, vars } from "@platform/config";
import { serviceVars } from "@platform/service";
import { z } from "zod";

export const authConfigSchema = z.object({
  ...serviceVars,
  REDIS_URL: vars.url(["redis", "rediss"]),
  KAFKA_BROKERS: vars.hostPortList(),
});

export type AuthConfig = z.infer<typeof authConfigSchema>;

export const loadAuthConfig = (env: NodeJS.ProcessEnv = process.env): AuthConfig => loadConfigOrExit("auth", authConfigSchema, env);
