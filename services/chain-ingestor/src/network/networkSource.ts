import type { ConfiguredChain } from "@platform/chain";
import type { Address } from "viem";
import { rpcHeaderReader } from "../follower/headerReader.js";
import { startFollowerSource, type FollowerSettings, type FollowerSource, type FollowerSourceStatus } from "../follower/followerSource.js";
import { commitNetworkRecords } from "./commitNetworkRecords.js";
import { networkBlockSource } from "./networkBlockSource.js";
import { networkStateReader } from "./networkState.js";

export type NativeChain = ConfiguredChain & { contracts: { multicall3: Address } };

export interface NetworkSourceOptions extends FollowerSettings {
  chain: NativeChain;
  pollIntervalMs: number;
  snapshotEveryBlocks: number;
  holderChunkSize: number;
  /** Netuids probed for existence (0 up to this bound). */
  maxNetuids: number;
  /**
   * The native source (the network's Substrate side) publishes account activity, pools, the
   * network totals and the accounts projection's BlockSeen: this source then publishes only what
   * the EVM face alone gives (emissions, subnets, validators, holders). Two sources
   * of the same facts would count them twice, and BlockSeen of two chains would move the accounts
   * head between them.
   */
  accountsFromNative?: boolean;
}

export type NetworkSourceStatus = FollowerSourceStatus;
export type NetworkSource = FollowerSource;

/**
 * The native network source: follows the chain with role "native" from its checkpoint
 * (`<chainId>:network`) and publishes every step (removals, records on chain.network.v1,
 * checkpoint) in one Kafka transaction with the transactional id
 * `chain-ingestor-network-<chain>`; the restart, fencing and reorganisation rules are those of
 * follower/followerSource.ts, shared with the intents source.
 */
export function startNetworkSource(options: NetworkSourceOptions): NetworkSource {
  const { chain, client, log } = options;
  const sourceId = `${chain.chainId}:network`;
  const blocks = networkBlockSource({
    client,
    chainId: chain.chainId,
    depths: chain.finality,
    state: networkStateReader({
      client,
      multicall3: chain.contracts.multicall3,
      maxNetuids: options.maxNetuids,
      onStorageDecodeError: (item, error) =>
        log.warn({ chainId: chain.chainId, item, err: error }, "a storage value does not decode as its item's type; left out of the snapshot"),
    }),
    snapshotEveryBlocks: options.snapshotEveryBlocks,
    holderChunkSize: options.holderChunkSize,
    accountsFromNative: options.accountsFromNative === true,
  });
  return startFollowerSource({
    ...options,
    headers: rpcHeaderReader(options.client),
    kind: "network",
    sourceId,
    transactionalId: `chain-ingestor-network-${chain.name}`,
    blocks,
    toRecords: (step, now) => commitNetworkRecords(step, { chainId: chain.chainId, sourceId, now }),
  });
}
