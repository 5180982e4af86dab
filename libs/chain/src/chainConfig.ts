import { getAddress, isAddress, type Address } from "viem";
import { z } from "zod";

/**
 * Schema of `deploy/config/<env>/chains.json`, the per-environment deployment data that drives the
 * ingestor, quotes and preflight. Objects are strict so a misspelt key fails loudly instead of
 * silently falling back to a default.
 */

/** `origin` and `destination` take part in intents (FullSettler); `native` is the Bittensor network. */
export const chainRoleSchema = z.enum(["origin", "destination", "native"]);
export type ChainRole = z.infer<typeof chainRoleSchema>;

/** Any case is accepted on input; the checksummed form comes out, so addresses compare by string. */
export const addressSchema = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), { message: "must be a 20-byte 0x address" })
  .transform((value): Address => getAddress(value));

/** A token symbol as used for keys: letters and digits, with `.` or `-` inside (`USDC`, `USDC.e`, `wstETH`). */
const tokenSymbolSchema = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,30}[A-Za-z0-9])?$/, { message: "must be a token symbol (letters, digits, . and -)" });

/** Addresses are optional: a chain is configured before its contracts are deployed. */
export const chainContractsSchema = z.strictObject({
  multicall3: addressSchema.optional(),
  fullSettler: addressSchema.optional(),
  /** CREATE2 factory of ERC-1271 test wallets (devnet), used to sign in as a not-yet-deployed contract wallet. */
  walletFactory: addressSchema.optional(),
  /** ERC-20 token contracts on this chain by symbol. */
  tokens: z.record(tokenSymbolSchema, addressSchema).optional(),
});
export type ChainContracts = z.infer<typeof chainContractsSchema>;

/**
 * How far below the head a block must be before its events count as `safe` and `finalized`; the
 * ingestor labels every event with that finality and must keep at least `finalizedDepth` block
 * hashes to detect reorgs. Depth 0 means the head itself (anvil, which never reorganises).
 */
export const finalitySchema = z
  .strictObject({
    safeDepth: z.int().min(0),
    finalizedDepth: z.int().min(0),
  })
  .refine((finality) => finality.finalizedDepth >= finality.safeDepth, {
    message: "finalizedDepth must be at least safeDepth",
    path: ["finalizedDepth"],
  });
export type Finality = z.infer<typeof finalitySchema>;

/** Per-request settings of the JSON-RPC transport; the defaults suit a healthy remote node. */
export const rpcSettingsSchema = z.strictObject({
  timeoutMs: z.int().positive().default(10_000),
  retryCount: z.int().min(0).default(3),
  retryDelayMs: z.int().min(0).default(150),
});

export const nativeCurrencySchema = z.strictObject({
  name: z.string().min(1),
  symbol: z.string().min(1),
  decimals: z.int().min(0).max(36),
});

export const configuredChainSchema = z.strictObject({
  /** Stable key used in descriptors, checkpoints and logs: lowercase, digits and dashes. */
  name: z.string().regex(/^[a-z][a-z0-9-]*$/, { message: "must be lowercase letters, digits and dashes" }),
  chainId: z.int().positive(),
  rpcUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  roles: z
    .array(chainRoleSchema)
    .min(1)
    .refine((roles) => new Set(roles).size === roles.length, { message: "lists a role twice" }),
  /** Expected time between blocks, in ms: sets polling intervals; not a guarantee. */
  blockTimeMs: z.int().positive(),
  finality: finalitySchema,
  nativeCurrency: nativeCurrencySchema.default({ name: "Ether", symbol: "ETH", decimals: 18 }),
  rpc: rpcSettingsSchema.prefault({}),
  contracts: chainContractsSchema.prefault({}),
});
export type ConfiguredChain = z.infer<typeof configuredChainSchema>;
export type ConfiguredChainInput = z.input<typeof configuredChainSchema>;

export const chainConfigSchema = z
  .strictObject({
    environment: z.string().min(1),
    chains: z.array(configuredChainSchema).min(1),
  })
  .superRefine((config, ctx) => {
    // Names and ids key checkpoints, topics and routes; a duplicate would merge two chains' data.
    const seenNames = new Map<string, number>();
    const seenIds = new Map<number, number>();
    config.chains.forEach((chain, index) => {
      const nameAt = seenNames.get(chain.name);
      if (nameAt !== undefined) {
        ctx.addIssue({ code: "custom", path: ["chains", index, "name"], message: `repeats chains[${nameAt}].name` });
      }
      seenNames.set(chain.name, index);
      const idAt = seenIds.get(chain.chainId);
      if (idAt !== undefined) {
        ctx.addIssue({ code: "custom", path: ["chains", index, "chainId"], message: `repeats chains[${idAt}].chainId` });
      }
      seenIds.set(chain.chainId, index);
    });
    // There is one native network per environment; the ingestor and data API read exactly that one.
    const natives = config.chains.flatMap((chain, index) => (chain.roles.includes("native") ? [index] : []));
    if (natives.length > 1) {
      ctx.addIssue({
        code: "custom",
        path: ["chains", natives[1]!, "roles"],
        message: `a second chain with role native (first is chains[${natives[0]!}])`,
      });
    }
  });
export type ChainConfig = z.infer<typeof chainConfigSchema>;
export type ChainConfigInput = z.input<typeof chainConfigSchema>;
