import type { AccountId } from "@platform/proto/common/v1/network";
import type { CommitReveal, LiquidAlpha, SubnetHyperparameters, SubnetIdentity, SubnetRegistration } from "@platform/proto/common/v1/network";
import type { SubnetSnapshot } from "@platform/proto/events/v1/chain_network";
import { formatU16Ratio, utf8Text } from "@platform/subtensor";
import { poolMechanism } from "../network/snapshotEvents.js";
import { accountField, amountField } from "./eventFields.js";
import { ROOT_NETUID } from "./nativePools.js";
import type { RuntimeAt, StorageItem } from "./runtimeAt.js";

/** A subnet's SubnetSnapshot at a block, but for the block's ref (the caller's). */
export type SubnetDetails = Omit<SubnetSnapshot, "ref">;

/*
 * How storage defaults show: dedot answers a `ValueQuery` map's default for a key never written,
 * and the runtime itself reads that same default (`Tempo::get`, `Burn::get`...), so a default is
 * the subnet's setting and is reported as such. The exception is an account: `SubnetOwner` and
 * `SubnetOwnerHotkey` default to the all-zero account, which means "none", so it is left out.
 * `OptionQuery` items (`SubnetIdentities`) come as undefined when unset and are left out.
 */

/** The identity maps, newest first: later runtimes added fields under new names (V2: url, discord...; V3: the logo). */
const SUBNET_IDENTITY_ITEMS = ["subnetIdentitiesV3", "subnetIdentitiesV2", "subnetIdentities"] as const;

/** Every per-subnet item the snapshot maps from, read with one `.multi(netuids)` each. */
const SUBNET_ITEMS = [
  "subnetOwner",
  "subnetOwnerHotkey",
  "tokenSymbol",
  "networkRegisteredAt",
  "subnetMechanism",
  "tempo",
  "subnetworkN",
  "maxAllowedUids",
  "maxAllowedValidators",
  "networkRegistrationAllowed",
  "networkPowRegistrationAllowed",
  "burn",
  "minBurn",
  "maxBurn",
  "difficulty",
  "raoRecycledForRegistration",
  "commitRevealWeightsEnabled",
  "revealPeriodEpochs",
  "liquidAlphaOn",
  "alphaValues",
  "yuma3On",
  "transferToggle",
  "rho",
  "kappa",
  "immunityPeriod",
  "minAllowedWeights",
  "maxWeightsLimit",
  "weightsVersionKey",
  "weightsSetRateLimit",
  "activityCutoff",
  "adjustmentAlpha",
  "bondsMovingAverage",
  "servingRateLimit",
  "alphaSigmoidSteepness",
] as const;
type SubnetItem = (typeof SUBNET_ITEMS)[number];

/** One subnet's values, by item; undefined for an item the runtime lacks. */
type SubnetRow = (item: SubnetItem) => unknown;

/**
 * Every subnet's settings and metadata at the runtime's block, as SubnetSnapshot payloads by
 * netuid: one batched read per storage item, whatever the number of subnets. `emissionEnabled` is
 * read with `readEmissionEnabled` unless the caller passes what `readEmissions` answered (the same
 * rule: then the block's subnet and emission snapshots agree without reading the items twice).
 */
export async function readSubnetDetails(
  runtime: RuntimeAt,
  netuids: readonly number[],
  emissionEnabled?: ReadonlyMap<number, boolean>,
): Promise<Map<number, SubnetDetails>> {
  const [columns, identities, enabled] = await Promise.all([
    readColumns(runtime, SUBNET_ITEMS, netuids),
    readFirstColumn(runtime, SUBNET_IDENTITY_ITEMS, netuids),
    emissionEnabled ?? readEmissionEnabled(runtime, netuids),
  ]);
  return new Map(
    netuids.map((netuid, index) => {
      const row: SubnetRow = (item) => columns[item]?.[index];
      return [netuid, subnetDetails(netuid, row, subnetIdentity(identities?.[index]), enabled.get(netuid) ?? false)];
    }),
  );
}

function subnetDetails(netuid: number, row: SubnetRow, identity: SubnetIdentity | undefined, emissionEnabled: boolean): SubnetDetails {
  const mechanism = smallInt(row("subnetMechanism"));
  return {
    netuid,
    // The name is the identity's, as the chain's DynamicInfo gives it.
    ...optional("name", identity?.subnetName === "" ? undefined : identity?.subnetName),
    ...optional("symbol", bytesText(row("tokenSymbol"))),
    ...optional("identity", identity),
    ...optional("ownerColdkey", storedAccount(row("subnetOwner"))),
    ...optional("ownerHotkey", storedAccount(row("subnetOwnerHotkey"))),
    // Required proto fields: a runtime without the item leaves the proto default.
    registeredAtBlock: u64Text(row("networkRegisteredAt")) ?? "0",
    mechanism: poolMechanism(mechanism ?? -1),
    tempo: smallInt(row("tempo")) ?? 0,
    uidCount: smallInt(row("subnetworkN")) ?? 0,
    ...optional("maxUids", smallInt(row("maxAllowedUids"))),
    ...optional("maxValidators", smallInt(row("maxAllowedValidators"))),
    ...optional("registration", registration(row)),
    ...optional("transfersEnabled", flag(row("transferToggle"))),
    emissionEnabled,
    ...optional("commitReveal", commitReveal(row)),
    ...optional("liquidAlpha", liquidAlpha(row)),
    // Runtimes before Yuma3 (spec 218) only run the original Yuma consensus.
    yuma3Enabled: flag(row("yuma3On")) ?? false,
    hyperparameters: hyperparameters(row),
  };
}

/**
 * Whether each subnet receives emission: `SubnetEmissionEnabled` where the runtime keeps it, else
 * (spec 218) whether it received any this block, as the EVM source judged it. Root never does.
 */
export async function readEmissionEnabled(runtime: RuntimeAt, netuids: readonly number[]): Promise<Map<number, boolean>> {
  const [columns, taoIn] = await Promise.all([
    readColumns(runtime, ["subnetEmissionEnabled", "subnetAlphaOutEmission"], netuids),
    readFirstColumn(runtime, TAO_IN_EMISSION_ITEMS, netuids),
  ]);
  return new Map(
    netuids.map((netuid, index) => [
      netuid,
      emissionEnabledOf(netuid, { stored: columns.subnetEmissionEnabled?.[index], taoIn: taoIn?.[index], alphaOut: columns.subnetAlphaOutEmission?.[index] }),
    ]),
  );
}

/** The TAO a subnet received this block: `SubnetTaoInEmission` in later runtimes, `EmissionValues` in spec 218. */
export const TAO_IN_EMISSION_ITEMS = ["subnetTaoInEmission", "emissionValues"] as const;

/** The rule of `readEmissionEnabled`, on values already read (raw, as the client decoded them). */
export function emissionEnabledOf(netuid: number, values: { stored: unknown; taoIn: unknown; alphaOut: unknown }): boolean {
  if (netuid === ROOT_NETUID) return false;
  const stored = flag(values.stored);
  if (stored !== undefined) return stored;
  return (amountField(values.taoIn) ?? 0n) > 0n || (amountField(values.alphaOut) ?? 0n) > 0n;
}

/** Left out when the runtime does not say whether registration is open (the rest would mean nothing). */
function registration(row: SubnetRow): SubnetRegistration | undefined {
  const allowed = flag(row("networkRegistrationAllowed"));
  if (allowed === undefined) return undefined;
  return {
    allowed,
    powAllowed: flag(row("networkPowRegistrationAllowed")) ?? false,
    // An amount the runtime lacks stays at the proto default (""), never a made-up zero.
    burnRao: u64Text(row("burn")) ?? "",
    minBurnRao: u64Text(row("minBurn")) ?? "",
    maxBurnRao: u64Text(row("maxBurn")) ?? "",
    difficulty: u64Text(row("difficulty")) ?? "0",
    ...optional("recycledTotalRao", u64Text(row("raoRecycledForRegistration"))),
  };
}

function commitReveal(row: SubnetRow): CommitReveal | undefined {
  const enabled = flag(row("commitRevealWeightsEnabled"));
  if (enabled === undefined) return undefined;
  return { enabled, interval: u64Text(row("revealPeriodEpochs")) ?? "0" };
}

function liquidAlpha(row: SubnetRow): LiquidAlpha | undefined {
  const enabled = flag(row("liquidAlphaOn"));
  if (enabled === undefined) return undefined;
  const values = row("alphaValues");
  const [low, high] = Array.isArray(values) && values.length === 2 ? values.map(u16Ratio) : [undefined, undefined];
  return { enabled, alphaLow: low ?? "", alphaHigh: high ?? "" };
}

/** Integers keep the chain's meaning; an item the runtime lacks stays at the proto default (0). */
function hyperparameters(row: SubnetRow): SubnetHyperparameters {
  const int = (item: SubnetItem) => smallInt(row(item)) ?? 0;
  const u64 = (item: SubnetItem) => u64Text(row(item)) ?? "0";
  return {
    rho: int("rho"),
    kappa: int("kappa"),
    immunityPeriod: int("immunityPeriod"),
    minAllowedWeights: int("minAllowedWeights"),
    maxWeightLimit: int("maxWeightsLimit"),
    weightsVersion: u64("weightsVersionKey"),
    weightsRateLimit: u64("weightsSetRateLimit"),
    activityCutoff: int("activityCutoff"),
    adjustmentAlpha: u64("adjustmentAlpha"),
    bondsMovingAverage: u64("bondsMovingAverage"),
    servingRateLimit: u64("servingRateLimit"),
    // An i16 in the runtimes that keep it; the proto's uint32 cannot hold a negative steepness, so
    // one stays at 0 (smallInt rejects it) rather than wrapping around.
    alphaSigmoidSteepness: int("alphaSigmoidSteepness"),
  };
}

/** Any identity version as the proto's (the newest's fields); fields an older version lacks are "". */
function subnetIdentity(value: unknown): SubnetIdentity | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const text = textFieldsOf(value);
  return {
    subnetName: text("subnetName"),
    githubRepo: text("githubRepo"),
    subnetContact: text("subnetContact"),
    subnetUrl: text("subnetUrl"),
    discord: text("discord"),
    description: text("description"),
    logoUrl: text("logoUrl"),
    additional: text("additional"),
  };
}

/* ---- Storage reads and value shapes shared by the snapshot readers (nativeMetagraph.ts, nativeEmissions.ts). ---- */

/** The SubtensorModule item, or undefined when the runtime at the block lacks it. */
export const subtensorItem = (runtime: RuntimeAt, item: string): StorageItem | undefined => runtime.storage("subtensorModule", item);

/**
 * Each item's values at the keys, one `.multi` per item (all in flight at once); undefined for an
 * item the runtime lacks. No read at all for no keys.
 */
export async function readColumns<const N extends string>(runtime: RuntimeAt, items: readonly N[], keys: readonly unknown[]): Promise<Record<N, unknown[] | undefined>> {
  const columns = await Promise.all(items.map((item) => readColumn(subtensorItem(runtime, item), item, keys)));
  return Object.fromEntries(items.map((item, index) => [item, columns[index]])) as Record<N, unknown[] | undefined>;
}

/** The values of the first of `items` the runtime has (renamed items, newest name first); undefined when it has none. */
export async function readFirstColumn(runtime: RuntimeAt, items: readonly string[], keys: readonly unknown[]): Promise<unknown[] | undefined> {
  const item = items.find((name) => subtensorItem(runtime, name) !== undefined);
  return item === undefined ? undefined : readColumn(subtensorItem(runtime, item), item, keys);
}

async function readColumn(storage: StorageItem | undefined, item: string, keys: readonly unknown[]): Promise<unknown[] | undefined> {
  if (storage === undefined) return undefined;
  if (keys.length === 0) return [];
  const values = await storage.multi(keys).catch((error: unknown) => {
    throw new Error(`reading SubtensorModule.${item} at ${keys.length} keys failed`, { cause: error });
  });
  if (values.length !== keys.length) throw new Error(`SubtensorModule.${item}: ${values.length} values for ${keys.length} keys`);
  return values;
}

/** A plain item's value; undefined when the runtime lacks it. */
export async function readPlain(runtime: RuntimeAt, item: string): Promise<unknown> {
  const storage = subtensorItem(runtime, item);
  if (storage === undefined) return undefined;
  return storage().catch((error: unknown) => {
    throw new Error(`reading SubtensorModule.${item} failed`, { cause: error });
  });
}

/** `{ name: value }` when the value is known, `{}` otherwise: spreads into an optional proto field. */
export const optional = <K extends string, T>(name: K, value: T | undefined): { [P in K]?: T } => (value === undefined ? {} : ({ [name]: value } as { [P in K]: T }));

/** An unsigned integer (u8..u64, bigint or number) as decimal text. */
export const u64Text = (value: unknown): string | undefined => amountField(value)?.toString();

/** An unsigned integer that fits a proto uint32 (u16, u32). */
export function smallInt(value: unknown): number | undefined {
  const amount = amountField(value);
  return amount !== undefined && amount <= 0xffff_ffffn ? Number(amount) : undefined;
}

export const flag = (value: unknown): boolean | undefined => (typeof value === "boolean" ? value : undefined);

/** A u16 ratio (score, take, cut) as a decimal in [0, 1]. */
export function u16Ratio(value: unknown): string | undefined {
  const amount = amountField(value);
  return amount !== undefined && amount <= 0xffffn ? formatU16Ratio(amount) : undefined;
}

const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

/** `Bytes` (dedot: a hex string) as UTF-8 text; invalid sequences become U+FFFD, as the EVM source decodes them. */
export function bytesText(value: unknown): string | undefined {
  return typeof value === "string" && HEX_BYTES.test(value) ? utf8Text(Buffer.from(value.slice(2), "hex")) : undefined;
}

/** The `Bytes` fields of an identity struct as text; a field the struct lacks is "" (the proto default). */
export const textFieldsOf = (value: object) => (field: string): string => bytesText((value as Record<string, unknown>)[field]) ?? "";

const ZERO_ACCOUNT = `0x${"0".repeat(64)}`;

/** An AccountId32, but for the all-zero account the runtime's account defaults stand for ("none"). */
export function storedAccount(value: unknown): AccountId | undefined {
  const account = accountField(value);
  return account === undefined || account.publicKey === ZERO_ACCOUNT ? undefined : account;
}
