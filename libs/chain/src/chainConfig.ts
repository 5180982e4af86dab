import { type Address, getAddress, isAddress } from "viem";
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
const tokenSymbolSchema = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,30}[A-Za-z0-9])?$/, {
  message: "must be a token symbol (letters, digits, . and -)",
});

/** Addresses are optional: a chain is configured before its contracts are deployed. */
export const chainContractsSchema = z.strictObject({
  multicall3: addressSchema.optional(),
  fullSettler: addressSchema.optional(),
  /** CREATE2 factory of ERC-1271 test wallets (devnet), used to sign in as a not-yet-deployed contract wallet. */
  walletFactory: addressSchema.optional(),
  /** ERC-20 token contracts on this chain by symbol. */
  tokens: z.record(tokenSymbolSchema, addressSchema).optional(),
  /**
   * Chainlink-style (AggregatorV3) coin/USD feed, read for the network coin's price by the
   * chain-ingestor's price source; on any one chain (the devnet's origin chain, Ethereum, an L2).
   */
  priceFeed: addressSchema.optional(),
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
  /**
   * Endpoint for reads users trigger (quotes, preflight's eth_calls, notification look-ups), so
   * they cannot use up the ingestion node's capacity; absent: rpcUrl, through a separate client.
   */
  preflightRpcUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
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

/**
 * The native network read the way the network itself works: its Substrate JSON-RPC (an archive
 * node in production, so state at any kept block can be read). Its records carry `chainId`, the
 * network's EVM chain id (`EVMChainId`), so native and EVM records of one network name it alike.
 */
export const substrateNetworkSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9-]*$/, { message: "must be lowercase letters, digits and dashes" }),
  chainId: z.int().positive(),
  /** WebSocket endpoint (new-head subscriptions); `ws://` locally, `wss://` in production. */
  rpcUrl: z.url({ protocol: /^wss?$/, error: "must be a ws(s) URL" }),
  blockTimeMs: z.int().positive(),
  finality: finalitySchema,
  /** SS58 address prefix of the network's accounts (42 on Bittensor). */
  ss58Prefix: z.int().min(0).max(16_383).default(42),
  rpc: rpcSettingsSchema.prefault({}),
});
export type SubstrateNetwork = z.infer<typeof substrateNetworkSchema>;
export type SubstrateNetworkInput = z.input<typeof substrateNetworkSchema>;

/** An amount in a token's base units: a decimal string, since uint256 values overflow JSON numbers. */
const baseUnitsSchema = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,77})$/, { message: "must be a decimal string of base units" });

/**
 * A route's token: an address (any case; the zero address is the chain's native coin) or a symbol,
 * either a key of the chain's `contracts.tokens` or its native currency's symbol. Symbols let the
 * template name tokens whose addresses only exist once the launcher has deployed them.
 */
export const routeTokenSchema = z.union([addressSchema, tokenSymbolSchema]);

/**
 * One quotable direction: what a user may put in on the origin chain and receive on the
 * destination chain, at what fee and within what bounds. The fee is `fixed + inputAmount * bps /
 * 10_000` in the input token; every amount is in the input token's base units.
 */
export const routeSchema = z
  .strictObject({
    originChainId: z.int().positive(),
    destinationChainId: z.int().positive(),
    inputToken: routeTokenSchema,
    outputToken: routeTokenSchema,
    fee: z.strictObject({
      /** Proportional part, basis points of the input amount. */
      bps: z.int().min(0).max(9_999),
      /** Flat part (e.g. the filler's destination gas), base units of the input token. */
      fixed: baseUnitsSchema,
    }),
    /** Bounds on the input amount, base units of the input token. */
    limits: z.strictObject({ min: baseUnitsSchema, max: baseUnitsSchema }),
    fillTimeEstimateSeconds: z.int().positive(),
    /** How long a quote stays valid; short, because the suggested fill deadline ages with it. */
    quoteTtlSeconds: z.int().positive().max(3_600),
  })
  .superRefine((route, ctx) => {
    if (route.originChainId === route.destinationChainId) {
      ctx.addIssue({ code: "custom", path: ["destinationChainId"], message: "must differ from originChainId" });
    }
    const min = BigInt(route.limits.min);
    if (min > BigInt(route.limits.max))
      ctx.addIssue({ code: "custom", path: ["limits", "max"], message: "must be at least limits.min" });
    // At the smallest allowed input the fee must leave something to deliver, or the route quotes zero.
    const feeAtMin = BigInt(route.fee.fixed) + (min * BigInt(route.fee.bps) + 9_999n) / 10_000n;
    if (min <= feeAtMin) {
      ctx.addIssue({
        code: "custom",
        path: ["limits", "min"],
        message: `must exceed the fee at that amount (${feeAtMin})`,
      });
    }
  });
export type RouteConfig = z.infer<typeof routeSchema>;
export type RouteConfigInput = z.input<typeof routeSchema>;

export const chainConfigSchema = z
  .strictObject({
    environment: z.string().min(1),
    chains: z.array(configuredChainSchema),
    /** The native network's Substrate side, followed by the chain-ingestor's native source. */
    substrate: substrateNetworkSchema.optional(),
    /** What quotes and preflight accept; an environment without routes quotes nothing. */
    routes: z.array(routeSchema).default([]),
  })
  .superRefine((config, ctx) => {
    if (config.chains.length === 0 && config.substrate === undefined) {
      ctx.addIssue({ code: "custom", path: ["chains"], message: "lists no chain (and there is no substrate network)" });
    }
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
        ctx.addIssue({
          code: "custom",
          path: ["chains", index, "chainId"],
          message: `repeats chains[${idAt}].chainId`,
        });
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
    // One coin price per environment: two feeds would interleave two series of rounds as one.
    const feeds = config.chains.flatMap((chain, index) => (chain.contracts.priceFeed === undefined ? [] : [index]));
    if (feeds.length > 1) {
      ctx.addIssue({
        code: "custom",
        path: ["chains", feeds[1]!, "contracts", "priceFeed"],
        message: `a second chain with a price feed (first is chains[${feeds[0]!}])`,
      });
    }
    checkRoutes(config, ctx);
  });
export type ChainConfig = z.infer<typeof chainConfigSchema>;
export type ChainConfigInput = z.input<typeof chainConfigSchema>;

type ParsedChainConfig = { chains: ConfiguredChain[]; routes: RouteConfig[] };

/**
 * Routes must point at chains that can take part in intents and at tokens those chains have. Either
 * intents role will do: every intents chain runs one FullSettler serving both sides (deploy/devnet),
 * so a route may run in either direction between them. Token symbols are checked only where the
 * chain lists its tokens: a template lists none until its contracts are deployed.
 */
function checkRoutes(config: ParsedChainConfig, ctx: z.RefinementCtx): void {
  const byId = new Map(config.chains.map((chain) => [chain.chainId, chain]));
  const seen = new Map<string, number>();
  config.routes.forEach((route, index) => {
    const sides = [
      ["originChainId", route.originChainId, "inputToken", route.inputToken],
      ["destinationChainId", route.destinationChainId, "outputToken", route.outputToken],
    ] as const;
    for (const [chainField, chainId, tokenField, token] of sides) {
      const chain = byId.get(chainId);
      if (chain === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["routes", index, chainField],
          message: `no chain with chainId ${chainId}`,
        });
        continue;
      }
      if (!chain.roles.some((role) => role === "origin" || role === "destination")) {
        ctx.addIssue({
          code: "custom",
          path: ["routes", index, chainField],
          message: `chain ${chain.name} has no intents role (origin or destination)`,
        });
      }
      const problem = routeTokenProblem(chain, token);
      if (problem !== undefined)
        ctx.addIssue({ code: "custom", path: ["routes", index, tokenField], message: problem });
    }
    const key = [route.originChainId, route.destinationChainId, route.inputToken, route.outputToken].join("/");
    const first = seen.get(key);
    if (first !== undefined)
      ctx.addIssue({ code: "custom", path: ["routes", index], message: `repeats routes[${first}]` });
    seen.set(key, index);
  });
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

function routeTokenProblem(chain: ConfiguredChain, token: string): string | undefined {
  const tokens = chain.contracts.tokens;
  if (/^0x[0-9a-fA-F]{40}$/.test(token)) {
    if (token === ZERO_ADDRESS || tokens === undefined || Object.values(tokens).includes(token as Address))
      return undefined;
    return `${token} is not a token of chain ${chain.name} (contracts.tokens) nor the native coin (zero address)`;
  }
  if (token === chain.nativeCurrency.symbol || tokens === undefined || Object.hasOwn(tokens, token)) return undefined;
  return `${token} is not a token symbol of chain ${chain.name} (contracts.tokens) nor its native currency ${chain.nativeCurrency.symbol}`;
}
