import { loadConfigOrExit, vars } from "@platform/config";
import { serviceVars } from "@platform/service";
import { z } from "zod";

export const tcConfigSchema = z.object({
  ...serviceVars,
  REDIS_URL: vars.url(["redis", "rediss"]),
  KAFKA_BROKERS: vars.hostPortList(),
  /** The T&C version wallets must have accepted to pass the gate. Raising it outdates every acceptance. */
  TC_CURRENT_VERSION: vars.positiveInt(),
});

export type TcConfig = z.infer<typeof tcConfigSchema>;

export const loadTcConfig = (env: NodeJS.ProcessEnv = process.env): TcConfig => loadConfigOrExit("tc", tcConfigSchema, env);
