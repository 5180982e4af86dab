import type { EmissionSnapshot } from "@platform/proto/events/v1/chain_network";
import { formatRatio, formatU64Ratio } from "@platform/subtensor";
import { amountField } from "../node/eventFields.js";
import type { RuntimeAt } from "../node/runtimeAt.js";
import {
  optional,
  readColumns,
  readFirstColumn,
  readPlain,
  smallInt,
  subtensorItem,
  u16Ratio,
  u64Text,
} from "../node/storageColumns.js";
import { emissionEnabledOf, TAO_IN_EMISSION_ITEMS } from "./subnetDetails.js";

/** A subnet's EmissionSnapshot at a block, but for the block's ref (the caller's). */
export type EmissionDetails = Omit<EmissionSnapshot, "ref">;

/*
 * What spec 218 keeps, and what it does not:
 * - `EmissionValues[netuid]`: the TAO the subnet received this block (later `SubnetTaoInEmission`).
 * - `PendingEmission[netuid]`: everything accumulated for the next epoch, undivided: the alpha
 *   block emission of a dynamic subnet (TAO for a stable one), before the owner cut, the servers'
 *   and the validators' (and root's) shares are split off at the epoch. No field of the snapshot
 *   is that total, so it is not published; the split `pending_*` fields come from the items later
 *   runtimes keep (`PendingServerEmission`, `PendingValidatorEmission`, `PendingRootAlphaDivs` or
 *   the older `PendingAlphaSwapped`, `PendingOwnerCut`). (Mid-2025 runtimes kept `PendingEmission`
 *   as the servers' and validators' alpha together, again no single field.)
 * - No per-block alpha emission (`SubnetAlphaInEmission`, `SubnetAlphaOutEmission`), excess TAO,
 *   root sells or root proportion: those fields are left out.
 */

/** Per-subnet items, one `.multi(netuids)` each; undefined where the runtime lacks them. */
const EMISSION_ITEMS = [
  "subnetAlphaInEmission",
  "subnetAlphaOutEmission",
  "subnetExcessTao",
  "subnetRootSellTao",
  "pendingServerEmission",
  "pendingValidatorEmission",
  "pendingOwnerCut",
  "rootProp",
  "subnetEmissionEnabled",
  "tempo",
  "lastMechansimStepBlock",
] as const;
type EmissionItem = (typeof EMISSION_ITEMS)[number];

/** The alpha held back for root's dividends until the epoch, newest name first. */
const PENDING_ROOT_ALPHA_ITEMS = ["pendingRootAlphaDivs", "pendingAlphaSwapped"] as const;

/** `RootProp` is a U96F32: 32 fraction bits. */
const U96F32_ONE = 1n << 32n;
const ROOT_PROP_DECIMALS = 18;

/** One subnet's epoch bookkeeping, as the schedule check needs it. */
export interface EpochState {
  netuid: number;
  tempo: number | undefined;
  lastStep: bigint | undefined;
}

/**
 * Every subnet's emission at the block `blockNumber` (the runtime's), as EmissionSnapshot payloads
 * by netuid: one batched read per storage item, whatever the number of subnets.
 */
export async function readEmissions(
  runtime: RuntimeAt,
  netuids: readonly number[],
  blockNumber: bigint,
): Promise<Map<number, EmissionDetails>> {
  const [columns, taoWeights, taoIn, pendingRootAlpha, blockEmission, ownerCut] = await Promise.all([
    readColumns(runtime, EMISSION_ITEMS, netuids),
    // A map by netuid in spec 218; later runtimes keep one plain value, which `.multi` cannot read.
    readColumns(runtime, ["taoWeight"], netuids).then(
      (read) => read.taoWeight,
      () => undefined,
    ),
    readFirstColumn(runtime, TAO_IN_EMISSION_ITEMS, netuids),
    readFirstColumn(runtime, PENDING_ROOT_ALPHA_ITEMS, netuids),
    readPlain(runtime, "blockEmission"),
    readPlain(runtime, "subnetOwnerCut"),
  ]);
  const value = (item: EmissionItem, index: number): unknown => columns[item]?.[index];
  const epochs: EpochState[] = netuids.map((netuid, index) => ({
    netuid,
    tempo: smallInt(value("tempo", index)),
    lastStep: amountField(value("lastMechansimStepBlock", index)),
  }));
  // Runtimes with `LastEpochBlock` schedule epochs from it (and from manual triggers), not by the formula.
  const predictable =
    subtensorItem(runtime, "lastEpochBlock") === undefined && followsTempoSchedule(epochs, blockNumber);

  return new Map(
    netuids.map((netuid, index) => {
      const { tempo, lastStep } = epochs[index]!;
      const next = predictable && tempo !== undefined ? nextEpochBlock(netuid, tempo, blockNumber) : undefined;
      const details: EmissionDetails = {
        netuid,
        emissionEnabled: emissionEnabledOf(netuid, {
          stored: value("subnetEmissionEnabled", index),
          taoIn: taoIn?.[index],
          alphaOut: value("subnetAlphaOutEmission", index),
        }),
        // Required proto fields: a runtime without the item leaves the proto default.
        taoInEmissionRao: u64Text(taoIn?.[index]) ?? "",
        ...optional("alphaInEmissionNalpha", u64Text(value("subnetAlphaInEmission", index))),
        ...optional("alphaOutEmissionNalpha", u64Text(value("subnetAlphaOutEmission", index))),
        ...optional("excessTaoRao", u64Text(value("subnetExcessTao", index))),
        ...optional("rootSellTaoRao", u64Text(value("subnetRootSellTao", index))),
        ...optional("pendingServerNalpha", u64Text(value("pendingServerEmission", index))),
        ...optional("pendingValidatorNalpha", u64Text(value("pendingValidatorEmission", index))),
        ...optional("pendingRootAlphaNalpha", u64Text(pendingRootAlpha?.[index])),
        ...optional("pendingOwnerCutNalpha", u64Text(value("pendingOwnerCut", index))),
        ...optional("rootProp", fixedU96F32(value("rootProp", index))),
        blockEmissionRao: u64Text(blockEmission) ?? "",
        ...optional("ownerCut", u16Ratio(ownerCut)),
        tempo: tempo ?? 0,
        // The map's default 0 means the subnet never stepped (no block 0 runs an epoch).
        ...optional("lastEpochBlock", lastStep === undefined || lastStep === 0n ? undefined : lastStep.toString()),
        ...optional("nextEpochBlock", next?.toString()),
        ...optional("taoWeight", taoWeightOf(taoWeights?.[index])),
      };
      return [netuid, details];
    }),
  );
}

/**
 * Blocks from `block` to the subnet's next epoch, as spec 218's `blocks_until_next_epoch`: a subnet
 * steps at the blocks where `(block + netuid + 1) % (tempo + 1) == tempo`, 0 when `block` is one
 * (the runtime's doc comment says `== 0`; its code and its own table say otherwise). Undefined for
 * tempo 0: such a subnet never steps.
 */
export function blocksUntilNextEpoch(netuid: number, tempo: number, block: bigint): bigint | undefined {
  if (tempo === 0) return undefined;
  const remainder = (block + BigInt(netuid) + 1n) % BigInt(tempo + 1);
  return BigInt(tempo) - remainder;
}

/** The first block after `block` (whose state the snapshot shows: its own epoch has run) at which the subnet steps. */
export function nextEpochBlock(netuid: number, tempo: number, block: bigint): bigint | undefined {
  const until = blocksUntilNextEpoch(netuid, tempo, block + 1n);
  return until === undefined ? undefined : block + 1n + until;
}

/**
 * Whether the subnets stepped at `block` exactly where the tempo formula says. Not every runtime
 * that calls itself spec 218 follows it: one raonet build steps every subnet at every block (the
 * tempo check commented out, commit 1629c559b; the devnet ran it until 29 Nov 2026), which one
 * block's storage shows as subnets stepping off their schedule. Then no next epoch is predicted
 * rather than a wrong one. (A subnet registered in the block, which has not stepped yet, also disables the
 * prediction for that block: a missing value, never a wrong one.)
 */
export function followsTempoSchedule(subnets: readonly EpochState[], block: bigint): boolean {
  return subnets.every(({ netuid, tempo, lastStep }) => {
    if (tempo === undefined || lastStep === undefined) return false;
    const scheduled = blocksUntilNextEpoch(netuid, tempo, block) === 0n;
    return (lastStep === block) === scheduled;
  });
}

/** A U96F32 (dedot: `{ bits }`) as a decimal, truncated to 18 places. */
function fixedU96F32(value: unknown): string | undefined {
  const bits =
    typeof value === "object" && value !== null && "bits" in value ? (value as { bits: unknown }).bits : undefined;
  return typeof bits === "bigint" && bits >= 0n ? formatRatio(bits, U96F32_ONE, ROOT_PROP_DECIMALS) : undefined;
}

/** `TaoWeight[netuid]` (a u64 fraction of u64::MAX) as a decimal ratio; undefined where unread. */
function taoWeightOf(value: unknown): string | undefined {
  const raw = amountField(value);
  return raw === undefined ? undefined : formatU64Ratio(raw);
}
