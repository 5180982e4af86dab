import { z } from "zod";

/*
 * The shape of an environment's deployment data (version 1). The published JSON Schema
 * (deploy/config/deployment.v1.schema.json) is generated from this definition, so the file
 * integrators validate against and the client's own parser cannot disagree.
 */

/** Bumped when a change would make a file of the previous version fail, or be read differently. */
export const DEPLOYMENT_SCHEMA_VERSION = 1;

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .meta({ description: "EVM address, any case (EIP-55 checksummed in the published files)" });

/** Decimal string of integer base units: amounts reach uint256, past what a JSON number holds exactly. */
const baseUnits = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,77})$/)
  .meta({ description: "Integer amount in the token's base units, as a decimal string" });

/** As the services' chains file spells symbols: letters and digits, with `.` or `-` inside. */
const symbol = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,30}[A-Za-z0-9])?$/)
  .meta({ description: "Token symbol, unique on its chain" });

const chainId = z.number().int().positive().meta({ description: "EIP-155 chain id" });

export const deploymentTokenSchema = z
  .strictObject({
    symbol,
    name: z.string().min(1),
    decimals: z.number().int().min(0).max(255),
    address: address.nullable().meta({
      description:
        "The token contract; the zero address is the chain's native coin. null where the contract is deployed with each run (a local devnet): the launcher writes the addresses into the file it publishes.",
    }),
  })
  .meta({ description: "A token that a route of this deployment takes in or pays out" });

export const deploymentChainSchema = z
  .strictObject({
    chainId,
    name: z.string().regex(/^[a-z][a-z0-9-]*$/),
    nativeCurrency: z.strictObject({ name: z.string().min(1), symbol, decimals: z.number().int().min(0).max(255) }),
    fullSettler: address.nullable().meta({
      description:
        "The FullSettler, both sides of a route: the target of open(...) and the spender to approve when the route starts here, the fill contract when it ends here. null where it is deployed with each run.",
    }),
    tokens: z.array(deploymentTokenSchema),
  })
  .meta({ description: "A chain that takes part in intents: the routes say which way" });

export const deploymentRouteSchema = z
  .strictObject({
    originChainId: chainId,
    destinationChainId: chainId,
    inputToken: symbol.meta({ description: "Symbol of a token of the origin chain" }),
    outputToken: symbol.meta({ description: "Symbol of a token of the destination chain" }),
    limits: z
      .strictObject({ minInputAmount: baseUnits, maxInputAmount: baseUnits })
      .meta({ description: "Input amounts a quote accepts, inclusive, in the input token's base units" }),
    fee: z
      .strictObject({
        bps: z.number().int().min(0).max(9_999).meta({ description: "Basis points of the input amount" }),
        fixedAmount: baseUnits.meta({ description: "Fixed part, in the input token's base units" }),
      })
      .meta({ description: "What the route keeps of the input: fixedAmount plus bps of the input amount" }),
    fillTimeEstimateSeconds: z.number().int().positive(),
    quoteTtlSeconds: z.number().int().positive().meta({ description: "How long a quote of this route stays valid" }),
  })
  .meta({ description: "A route the Service API quotes" });

export const deploymentSchema = z
  .strictObject({
    $schema: z.string().optional(),
    schemaVersion: z.literal(DEPLOYMENT_SCHEMA_VERSION),
    environment: z.string().regex(/^[a-z][a-z0-9-]*$/),
    chains: z.array(deploymentChainSchema).min(1),
    routes: z.array(deploymentRouteSchema),
  })
  .meta({
    title: "Deployment data",
    description:
      "One environment's chains, tokens, FullSettler addresses and the routes its Service API serves, with their limits. Published beside the API, never served by it.",
  });

export type Deployment = z.infer<typeof deploymentSchema>;
export type DeploymentChain = z.infer<typeof deploymentChainSchema>;
export type DeploymentToken = z.infer<typeof deploymentTokenSchema>;
export type DeploymentRoute = z.infer<typeof deploymentRouteSchema>;

/** The JSON Schema (draft 2020-12) of a deployment file, as published in deploy/config. */
export function deploymentJsonSchema(): Record<string, unknown> {
  return {
    $id: `deployment.v${DEPLOYMENT_SCHEMA_VERSION}.schema.json`,
    ...z.toJSONSchema(deploymentSchema, { target: "draft-2020-12", io: "input" }),
  };
}
