import { vars } from "@platform/config";
import { z } from "zod";

export const simulatorConfigSchema = z.object({
  /** Deployment data with the settlers and tokens (the stack's chains.json). */
  CHAINS_FILE: vars.string(),
  /** JSON file of the devnet accounts' keys, mode 0600 (see keysFile.ts). */
  SIMULATOR_KEYS_FILE: vars.string(),
  OPS_HOST: vars.string().default("127.0.0.1"),
  /** /healthz and /readyz, so the launcher can wait for the simulator like for a service. */
  OPS_PORT: vars.port().default(9477),
  LOG_LEVEL: vars.logLevel().default("info"),
  /** Time between rounds of reading events and acting on them; a fraction of the devnet's 1 s blocks. */
  SIM_POLL_INTERVAL_MS: vars.positiveInt().default(300),
  /** The filler takes only orders leaving it at least this fee, basis points of the input. */
  SIM_FILLER_MIN_FEE_BPS: z.coerce.number().int().min(0).max(9_999).default(1),
  /** Demo users opening orders; false leaves the chains to whoever else opens orders. */
  SIM_DEMO: vars.boolean().default(true),
  SIM_DEMO_USERS: vars.positiveInt().default(3),
  SIM_DEMO_ORDER_INTERVAL_MS: vars.positiveInt().default(6_000),
  /** Above the devnet settlers' 30 s minimum fill window, short enough that unfilled orders expire within minutes. */
  SIM_DEMO_FILL_WINDOW_SECONDS: vars.positiveInt().default(90),
  /** Every n-th demo order pays no fee and is left to expire. */
  SIM_DEMO_UNFILLED_EVERY: vars.positiveInt().default(4),
  SIM_SEED: vars.positiveInt().default(1),
  /** Time between rounds of the coin/USD price feed, on whichever chain carries it. */
  SIM_PRICE_INTERVAL_MS: vars.positiveInt().default(3_000),
});

export type SimulatorConfig = z.infer<typeof simulatorConfigSchema>;
