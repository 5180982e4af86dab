import type {
  CommitReveal,
  LiquidAlpha,
  SubnetHyperparameters,
  SubnetIdentity,
  SubnetRegistration,
} from "@platform/proto/common/v1/network";
import type { SubnetSnapshot } from "@platform/proto/events/v1/chain_network";
import { ROOT_NETUID } from "@platform/subtensor";
import { amountField } from "../node/eventFields.js";
import type { RuntimeAt } from "../node/runtimeAt.js";
import {
  bytesText,
  flag,
  optional,
  readColumns,
  readFirstColumn,
  smallInt,
  storedAccount,
  textFieldsOf,
  u16Ratio,
  u64Text,
} from "../node/storageColumns.js";
import { poolMechanism } from "../records/poolMechanism.js";

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

function subnetDetails(
  netuid: number,
  row: SubnetRow,
  identity: SubnetIdentity | undefined,
  emissionEnabled: boolean,
): SubnetDetails {
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
export async function readEmissionEnabled(
  runtime: RuntimeAt,
  netuids: readonly number[],
): Promise<Map<number, boolean>> {
  const [columns, taoIn] = await Promise.all([
    readColumns(runtime, ["subnetEmissionEnabled", "subnetAlphaOutEmission"], netuids),
    readFirstColumn(runtime, TAO_IN_EMISSION_ITEMS, netuids),
  ]);
  return new Map(
    netuids.map((netuid, index) => [
      netuid,
      emissionEnabledOf(netuid, {
        stored: columns.subnetEmissionEnabled?.[index],
        taoIn: taoIn?.[index],
        alphaOut: columns.subnetAlphaOutEmission?.[index],
      }),
    ]),
  );
}

/** The TAO a subnet received this block: `SubnetTaoInEmission` in later runtimes, `EmissionValues` in spec 218. */
export const TAO_IN_EMISSION_ITEMS = ["subnetTaoInEmission", "emissionValues"] as const;

/** The rule of `readEmissionEnabled`, on values already read (raw, as the client decoded them). */
export function emissionEnabledOf(
  netuid: number,
  values: { stored: unknown; taoIn: unknown; alphaOut: unknown },
): boolean {
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
