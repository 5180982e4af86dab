/**
 * Example values for the TypeScript samples of the reference page (codeSamples.ts): by parameter
 * or member name first, else from the JSON Schema (its const, first enum value, form or type). A
 * required parameter or member that none of these covers throws, so a new route is given one.
 */

type Schema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  properties?: Record<string, Schema | false>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  allOf?: Schema[];
  oneOf?: Schema[];
};

const EVM_ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7";
const TOKEN_ADDRESS = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const HASH = `0x${"9f".repeat(32)}`;

/** By name: what a reader would put there. */
const BY_NAME: Record<string, unknown> = {
  address: "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY",
  netuid: 1,
  orderId: HASH,
  txHash: HASH,
  originTxHash: HASH,
  originChainId: 1,
  destinationChainId: 964,
  userAddress: EVM_ADDRESS,
  walletAddress: EVM_ADDRESS,
  recipient: EVM_ADDRESS,
  inputToken: TOKEN_ADDRESS,
  outputToken: TOKEN_ADDRESS,
  amount: "1000000",
  inputAmount: "1000000",
  outputAmount: "998500",
  quoteId: "q_01JD…",
  nonce: "1",
  fillDeadline: 1_800_000_000,
  message: "api.example.com wants you to sign in with your Ethereum account: …",
  signature: "0x…",
  orderDataType: "0x710ff9c18e186a951058948b3f672872edcc77cebb109fa91b4dd01bda901fcc",
  orderData: "0x…",
};

/** A value for a member or parameter named `name` of this schema. */
export function sampleValue(name: string, schema: Schema): unknown {
  const types = [schema.type ?? []].flat();
  if (name in BY_NAME) {
    const value = BY_NAME[name];
    return types.includes("array") ? [value] : value;
  }
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return schema.enum[0];
  if (schema.format === "evm-address") return EVM_ADDRESS;
  if (types.includes("object") || schema.properties !== undefined) return sampleObject(schema);
  if (types.includes("array") && schema.items !== undefined) return [sampleValue(name, schema.items)];
  if (types.includes("integer") || types.includes("number")) return 1;
  if (types.includes("boolean")) return true;
  if (types.includes("string") && schema.pattern === undefined) return "…";
  throw new Error(`no sample value for ${name} (${JSON.stringify(schema).slice(0, 200)})`);
}

/**
 * An object with its required members, and those of the first branch of an `anyOf` that only
 * requires some (the preflight body: `order` or `quoteId`).
 */
export function sampleObject(schema: Schema): Record<string, unknown> {
  const branch = schema.anyOf?.[0];
  const required = [...(schema.required ?? []), ...(branch?.required ?? [])];
  const sample: Record<string, unknown> = {};
  for (const name of required) {
    const member = schema.properties?.[name];
    if (member === undefined || member === false) throw new Error(`no schema for the required member ${name}`);
    sample[name] = sampleValue(name, member);
  }
  return sample;
}
