import { accountFromPublicKey, formatAlphaPrice, formatU16Ratio, formatU64Ratio } from "@platform/subtensor";
import type { ChainRef } from "@platform/proto/common/v1/common";
import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import type { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { eventTypeOf } from "@platform/proto/topics";
import type { Hex } from "viem";
import { NETWORK_KEY, netuidKey, networkEventId, type NetworkRecord } from "./networkRecord.js";
import type { NetworkState, SubnetState } from "./networkState.js";
import type { NetworkStorage } from "./storageReads.js";

export interface SnapshotContext {
  chainId: number;
  blockHash: Hex;
  /** The block's ChainRef (no tx hash: state read at a block). */
  ref: ChainRef;
  /** Positions per HolderPositions record; a subnet with more is split into chunks of one block. */
  holderChunkSize: number;
}

/** `SubnetMechanism`: 0 stable, 1 dynamic. */
export function poolMechanism(raw: number): PoolMechanism {
  if (raw === 0) return PoolMechanism.POOL_MECHANISM_STABLE;
  if (raw === 1) return PoolMechanism.POOL_MECHANISM_DYNAMIC;
  return PoolMechanism.POOL_MECHANISM_UNSPECIFIED;
}

/**
 * The snapshot records of one block: per subnet a pool, an emission, a subnet and a validator set
 * snapshot and its holder chunks, then the network totals. Values are what the precompiles and
 * StorageQuery answered at the block, in their base units; prices (1e18-scaled) and u16/u64 ratios
 * become exact decimals. A storage item that could not be read (or is not stored and has no pallet
 * default) is left out (optional fields) or at the proto default.
 */
export function snapshotRecords(state: NetworkState, context: SnapshotContext): NetworkRecord[] {
  const records: NetworkRecord[] = [];
  const push = (key: string, payload: NetworkChainEvent, ...idParts: (string | number)[]) => {
    const eventType = eventTypeOf(payload);
    records.push({
      topic: "chain.network.v1",
      key,
      eventId: networkEventId(context.chainId, context.blockHash, eventType, key, ...idParts),
      eventType,
      ref: context.ref,
      payload,
    });
  };
  for (const subnet of state.subnets) {
    const key = netuidKey(subnet.netuid);
    push(key, { event: { $case: "poolSnapshot", value: poolSnapshot(subnet, context.ref) } });
    push(key, { event: { $case: "emissionSnapshot", value: emissionSnapshot(subnet, state.rootNetuid, context.ref, state.storage) } });
    push(key, { event: { $case: "subnetSnapshot", value: subnetSnapshot(subnet, state.rootNetuid, context.ref) } });
    push(key, { event: { $case: "validatorSetSnapshot", value: validatorSetSnapshot(subnet, context.ref) } });
    holderChunks(state, subnet.netuid, context).forEach((chunk) => push(key, { event: { $case: "holderPositions", value: chunk } }, chunk.chunkIndex));
  }
  push(NETWORK_KEY, { event: { $case: "networkStatsSnapshot", value: networkStats(state, context.ref) } });
  return records;
}

export function poolSnapshot(subnet: SubnetState, ref: ChainRef) {
  const { pool } = subnet;
  return {
    ref,
    netuid: subnet.netuid,
    mechanism: poolMechanism(pool.mechanism),
    taoInRao: pool.taoIn.toString(),
    alphaInNalpha: pool.alphaIn.toString(),
    alphaOutNalpha: pool.alphaOut.toString(),
    alphaIssuanceNalpha: pool.alphaIssuance.toString(),
    priceTao: formatAlphaPrice(pool.price),
    movingPriceTao: formatAlphaPrice(pool.movingPrice),
    volumeTotalRao: pool.volume.toString(),
  };
}

export function emissionSnapshot(subnet: SubnetState, rootNetuid: number, ref: ChainRef, storage?: NetworkStorage) {
  const { emission } = subnet;
  return {
    ref,
    netuid: subnet.netuid,
    // `SubnetEmissionEnabled` is storage only; a non-root subnet that received emission in the block has it on.
    emissionEnabled: subnet.netuid !== rootNetuid && (emission.taoInEmission > 0n || emission.alphaOutEmission > 0n),
    taoInEmissionRao: emission.taoInEmission.toString(),
    alphaInEmissionNalpha: emission.alphaInEmission.toString(),
    alphaOutEmissionNalpha: emission.alphaOutEmission.toString(),
    // `BlockEmission` (network-wide) and `Tempo[netuid]`, from storage.
    blockEmissionRao: storage?.blockEmission?.toString() ?? "",
    tempo: subnet.metadata?.tempo ?? 0,
  };
}

export function subnetSnapshot(subnet: SubnetState, rootNetuid: number, ref: ChainRef) {
  const { settings, emission } = subnet;
  const metadata = subnet.metadata ?? {};
  return {
    ref,
    netuid: subnet.netuid,
    // The name is the identity's (`SubnetIdentitiesV3.subnet_name`), as the chain's DynamicInfo gives it.
    ...(metadata.identity?.subnetName ? { name: metadata.identity.subnetName } : {}),
    ...(metadata.symbol === undefined ? {} : { symbol: metadata.symbol }),
    ...(metadata.identity === undefined ? {} : { identity: { ...metadata.identity } }),
    ...(metadata.ownerColdkey === undefined ? {} : { ownerColdkey: accountFromPublicKey(metadata.ownerColdkey) }),
    ...(metadata.ownerHotkey === undefined ? {} : { ownerHotkey: accountFromPublicKey(metadata.ownerHotkey) }),
    registeredAtBlock: settings.registeredAtBlock.toString(),
    mechanism: poolMechanism(subnet.pool.mechanism),
    tempo: metadata.tempo ?? 0,
    uidCount: subnet.neurons.length,
    ...(settings.networkRegistrationAllowed === undefined
      ? {}
      : {
          registration: {
            allowed: settings.networkRegistrationAllowed,
            powAllowed: settings.powRegistrationAllowed ?? false,
            // The current `Burn[netuid]` has no precompile getter.
            burnRao: "",
            minBurnRao: (settings.minBurn ?? 0n).toString(),
            maxBurnRao: (settings.maxBurn ?? 0n).toString(),
            difficulty: (settings.difficulty ?? 0n).toString(),
          },
        }),
    emissionEnabled: subnet.netuid !== rootNetuid && (emission.taoInEmission > 0n || emission.alphaOutEmission > 0n),
    ...(settings.commitRevealEnabled === undefined
      ? {}
      : { commitReveal: { enabled: settings.commitRevealEnabled, interval: (settings.commitRevealInterval ?? 0n).toString() } }),
    ...(settings.liquidAlphaEnabled === undefined
      ? {}
      : {
          liquidAlpha: {
            enabled: settings.liquidAlphaEnabled,
            alphaLow: settings.alphaValues === undefined ? "" : formatU16Ratio(settings.alphaValues[0]),
            alphaHigh: settings.alphaValues === undefined ? "" : formatU16Ratio(settings.alphaValues[1]),
          },
        }),
    yuma3Enabled: settings.yuma3Enabled ?? false,
    hyperparameters: {
      rho: settings.rho ?? 0,
      kappa: settings.kappa ?? 0,
      immunityPeriod: settings.immunityPeriod ?? 0,
      minAllowedWeights: settings.minAllowedWeights ?? 0,
      maxWeightLimit: settings.maxWeightLimit ?? 0,
      weightsVersion: (settings.weightsVersionKey ?? 0n).toString(),
      weightsRateLimit: (settings.weightsSetRateLimit ?? 0n).toString(),
      activityCutoff: settings.activityCutoff ?? 0,
      adjustmentAlpha: (settings.adjustmentAlpha ?? 0n).toString(),
      bondsMovingAverage: (settings.bondsMovingAverage ?? 0n).toString(),
      servingRateLimit: (settings.servingRateLimit ?? 0n).toString(),
      alphaSigmoidSteepness: settings.alphaSigmoidSteepness ?? 0,
    },
  };
}

export function validatorSetSnapshot(subnet: SubnetState, ref: ChainRef) {
  return {
    ref,
    netuid: subnet.netuid,
    neurons: subnet.neurons.map((neuron) => ({
      uid: neuron.uid,
      hotkey: accountFromPublicKey(neuron.hotkey),
      coldkey: accountFromPublicKey(neuron.coldkey),
      validatorPermit: neuron.validatorPermit,
      active: neuron.active,
      alphaStakeNalpha: neuron.alphaStake.toString(),
      ...(neuron.rootStake === undefined ? {} : { rootStakeRao: neuron.rootStake.toString() }),
      dividends: formatU16Ratio(neuron.dividends),
      vtrust: formatU16Ratio(neuron.vtrust),
      incentive: formatU16Ratio(neuron.incentive),
      consensus: formatU16Ratio(neuron.consensus),
      emissionNalpha: neuron.emission.toString(),
      lastUpdateBlock: neuron.lastUpdate.toString(),
      // `Delegates[hotkey]` (stored for delegates only) and `IdentitiesV2[coldkey]`.
      ...(neuron.metadata?.take === undefined ? {} : { take: formatU16Ratio(neuron.metadata.take) }),
      ...(neuron.metadata?.identity === undefined ? {} : { identity: { ...neuron.metadata.identity } }),
    })),
  };
}

/** The subnet's positions, largest first, in chunks of at most `holderChunkSize` (one empty chunk when none). */
export function holderChunks(state: NetworkState, netuid: number, context: Pick<SnapshotContext, "ref" | "holderChunkSize">) {
  const positions = state.stakes
    .filter((stake) => stake.netuid === netuid)
    .sort((a, b) => (a.alpha === b.alpha ? compareKeys(a, b) : a.alpha > b.alpha ? -1 : 1))
    .map((stake) => ({
      coldkey: accountFromPublicKey(stake.coldkey),
      hotkey: accountFromPublicKey(stake.hotkey),
      alphaNalpha: stake.alpha.toString(),
    }));
  const size = Math.max(1, context.holderChunkSize);
  const chunkCount = Math.max(1, Math.ceil(positions.length / size));
  return Array.from({ length: chunkCount }, (_, chunkIndex) => ({
    ref: context.ref,
    netuid,
    // EVM reads reach stakers through the subnet's registered hotkeys only (research §2.5).
    coverage: HolderCoverage.HOLDER_COVERAGE_REGISTERED_HOTKEYS_ONLY,
    chunkIndex,
    chunkCount,
    positions: positions.slice(chunkIndex * size, (chunkIndex + 1) * size),
  }));
}

function compareKeys(a: { coldkey: Hex; hotkey: Hex }, b: { coldkey: Hex; hotkey: Hex }): number {
  const left = `${a.coldkey}${a.hotkey}`;
  const right = `${b.coldkey}${b.hotkey}`;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function networkStats(state: NetworkState, ref: ChainRef) {
  const root = state.subnets.find((subnet) => subnet.netuid === state.rootNetuid);
  const stakedRoot = root?.pool.taoIn ?? 0n;
  const stakedAlphaPools = state.subnets.filter((subnet) => subnet !== root).reduce((sum, subnet) => sum + subnet.pool.taoIn, 0n);
  const storage = state.storage ?? {};
  return {
    ref,
    // `TotalIssuance`, `BlockEmission` and `SubnetLimit` from storage; empty / 0 when unreadable.
    totalIssuanceRao: storage.totalIssuance?.toString() ?? "",
    // `TotalStake` is the TAO in every pool, root included: the sum of `SubnetTAO`.
    totalStakeRao: (stakedRoot + stakedAlphaPools).toString(),
    stakedRootRao: stakedRoot.toString(),
    stakedAlphaPoolsRao: stakedAlphaPools.toString(),
    blockEmissionRao: storage.blockEmission?.toString() ?? "",
    taoWeight: formatU64Ratio(state.taoWeight),
    rootNetuid: state.rootNetuid,
    // Like `TotalNetworks`, root included.
    subnetsCount: state.subnets.length,
    subnetLimit: storage.subnetLimit ?? 0,
  };
}
