import { defaultPartitions } from "@platform/bus";
import type { Finality as FinalityDepths } from "@platform/chain";
import { accountFromPublicKey, weiToRao, type AccountId } from "@platform/subtensor";
import type { ChainRef } from "@platform/proto/common/v1/common";
import type { AccountBalance } from "@platform/proto/events/v1/chain_network";
import type { Address, Client, Hex } from "viem";
import { ForkDuringReadError, type BlockSource } from "../follower/blockFollower.js";
import type { BlockHeader, BlockRef, WindowBlock } from "../follower/blocks.js";
import { toHeader } from "../follower/headerReader.js";
import { finalityAt } from "../intents/finality.js";
import { decodeActivity, type Activity, type MinedTransaction } from "./activity.js";
import { activityRecords, touchedAccounts } from "./activityEvents.js";
import type { NetworkRecord } from "./networkRecord.js";
import type { NetworkState, NetworkStateReader } from "./networkState.js";
import { snapshotRecords } from "./snapshotEvents.js";
import { blockSeenRecords } from "./blockSeen.js";

export interface NetworkBlockSourceOptions {
  client: Client;
  chainId: number;
  depths: FinalityDepths;
  state: NetworkStateReader;
  /** Snapshots are taken at blocks whose number is a multiple of this (1: every block). */
  snapshotEveryBlocks: number;
  holderChunkSize: number;
  /** chain.network.v1's partition count, for the BlockSeen records; the topic catalog's by default. */
  networkPartitions?: number;
  /**
   * The native source (the network's Substrate side) publishes account activity, pools, the
   * network totals and the accounts projection's BlockSeen: this source then publishes only what
   * the EVM face alone gives (emissions, subnets, validators, holders). Two sources
   * of the same facts would count them twice, and BlockSeen of two chains would move the accounts
   * head between them.
   */
  accountsFromNative?: boolean;
}

/** Snapshots the native source publishes from the runtime when it follows the network. */
const LEFT_TO_NATIVE = new Set(["PoolSnapshot", "NetworkStatsSnapshot"]);

export interface NetworkBlockSource extends BlockSource<NetworkRecord> {
  /** The records of kept blocks named by a checkpoint, read again by hash (see IntentsBlockSource). */
  recoverWindow(blocks: readonly BlockRef[]): Promise<{ window: WindowBlock<NetworkRecord>[]; unknown: BlockRef[] }>;
}

interface RpcTransaction {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  value: Hex;
  input: Hex;
  transactionIndex: Hex;
}

interface RpcFullBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  transactions: RpcTransaction[];
}

interface RpcReceipt {
  blockHash: Hex;
  status: Hex;
  gasUsed: Hex;
  effectiveGasPrice?: Hex;
}

/**
 * Reads the native network block by block: the transactions (decoded into account activity, with
 * each touched account's balances at the end of the block), and on snapshot blocks the network's state through the precompiles. Every state read names the block
 * by hash, so it belongs to exactly the block the follower linked.
 */
export function networkBlockSource(options: NetworkBlockSourceOptions): NetworkBlockSource {
  const { client, chainId, depths } = options;
  const seenRecords = blockSeenRecords(options.networkPartitions ?? defaultPartitions["chain.network.v1"]);

  const transactionsOf = async (header: BlockHeader): Promise<MinedTransaction[]> => {
    const block = (await client.request({ method: "eth_getBlockByHash", params: [header.hash, true] })) as RpcFullBlock | null;
    if (block === null) throw new ForkDuringReadError(`block ${header.number} (${header.hash}) vanished while it was read`);
    const receipts = await Promise.all(
      block.transactions.map((tx) => client.request({ method: "eth_getTransactionReceipt", params: [tx.hash] }) as Promise<RpcReceipt | null>),
    );
    return block.transactions.map((tx, index) => {
      const receipt = receipts[index];
      if (receipt === null || receipt === undefined || receipt.blockHash.toLowerCase() !== header.hash) {
        throw new ForkDuringReadError(`the receipt of ${tx.hash} is not of block ${header.hash}`);
      }
      return {
        hash: tx.hash.toLowerCase() as Hex,
        index: Number(tx.transactionIndex),
        from: tx.from,
        ...(tx.to === null ? {} : { to: tx.to }),
        valueWei: BigInt(tx.value),
        input: tx.input,
        success: BigInt(receipt.status) === 1n,
        gasUsed: BigInt(receipt.gasUsed),
        effectiveGasPriceWei: BigInt(receipt.effectiveGasPrice ?? "0x0"),
      };
    });
  };

  /** Free balance (EVM-mapped accounts) and every known position of each touched account, at the block. */
  const balancesAfter = async (header: BlockHeader, activities: readonly Activity[], state: NetworkState | undefined) => {
    const accounts = touchedAccounts(activities);
    const evm = accounts.filter((account): account is AccountId & { evmH160: string } => account.evmH160 !== undefined);
    const touches = activities.flatMap((activity) => activity.stakeTouches);
    const [wei, touched] = await Promise.all([
      options.state.balancesOf(
        header.hash,
        evm.map((account) => account.evmH160 as Address),
      ),
      options.state.stakesOf(
        header.hash,
        touches.map((touch) => ({ hotkey: touch.hotkey.publicKey as Hex, coldkey: touch.coldkey.publicKey as Hex, netuid: touch.netuid })),
      ),
    ]);
    const balances = new Map<string, AccountBalance>();
    // Before Multicall3 existed nothing can be read at the block: the records go out without balances.
    if (wei === undefined || touched === undefined) return balances;
    evm.forEach((account, index) => {
      // Positions by (netuid, hotkey): the enumerated ones, then the ones this block's calls touched.
      const positions = new Map<string, { netuid: number; hotkey: Hex; alpha: bigint }>();
      for (const stake of state?.stakes ?? []) {
        if (stake.coldkey === account.publicKey) positions.set(`${stake.netuid}:${stake.hotkey}`, stake);
      }
      touches.forEach((touch, at) => {
        if (touch.coldkey.publicKey !== account.publicKey) return;
        positions.set(`${touch.netuid}:${touch.hotkey.publicKey}`, { netuid: touch.netuid, hotkey: touch.hotkey.publicKey as Hex, alpha: touched[at]! });
      });
      balances.set(account.publicKey, {
        freeRao: weiToRao(wei[index]!).toString(),
        // An EVM account holds no reserved or frozen balance the EVM can see.
        reservedRao: "0",
        frozenRao: "0",
        positions: [...positions.values()]
          .filter((position) => position.alpha > 0n)
          .sort((a, b) => a.netuid - b.netuid || (a.hotkey < b.hotkey ? -1 : 1))
          .map((position) => ({ netuid: position.netuid, hotkey: accountFromPublicKey(position.hotkey), stakeNalpha: position.alpha.toString() })),
      });
    });
    return balances;
  };

  const readBlock = async (header: BlockHeader, latest: bigint): Promise<NetworkRecord[]> => {
    const ref: ChainRef = {
      chainId: String(chainId),
      blockNumber: header.number.toString(),
      blockHash: header.hash,
      parentHash: header.parentHash,
      blockTimestamp: new Date(Number(header.timestamp) * 1_000).toISOString(),
      finality: finalityAt(header.number, latest, depths),
    };
    const transactions = options.accountsFromNative === true ? [] : await transactionsOf(header);
    const activities = transactions.map((tx) => decodeActivity(header.number, tx));
    const snapshotDue = header.number % BigInt(options.snapshotEveryBlocks) === 0n;
    // Positions are enumerated from the state, so a block with activity reads it too.
    const state = snapshotDue || activities.length > 0 ? await options.state.read(header.hash) : undefined;
    const balances = activities.length > 0 ? await balancesAfter(header, activities, state) : new Map<string, AccountBalance>();

    const records = activityRecords(activities, { chainId, blockRef: ref, balances });
    if (state !== undefined && snapshotDue) {
      const snapshots = snapshotRecords(state, { chainId, blockHash: header.hash, ref, holderChunkSize: options.holderChunkSize });
      records.push(...(options.accountsFromNative === true ? snapshots.filter((record) => !LEFT_TO_NATIVE.has(record.eventType)) : snapshots));
    }
    if (options.accountsFromNative !== true) records.push(...seenRecords({ chainId, ref }));
    return records;
  };

  return {
    async readBlocks(headers, latest) {
      const records = new Map<Hex, NetworkRecord[]>();
      // One block at a time: each is a few batched requests already, and the node is shared.
      for (const header of headers) records.set(header.hash, await readBlock(header, latest));
      return records;
    },

    async recoverWindow(blocks) {
      const latest = BigInt(await client.request({ method: "eth_blockNumber" }));
      const fetched = await Promise.all(
        blocks.map((block) => client.request({ method: "eth_getBlockByHash", params: [block.hash, false] }) as Promise<Parameters<typeof toHeader>[0] | null>),
      );
      const window: WindowBlock<NetworkRecord>[] = [];
      const unknown: BlockRef[] = [];
      for (const [index, block] of blocks.entries()) {
        const raw = fetched[index];
        if (raw === null || raw === undefined) {
          unknown.push(block);
          window.push({ block, events: [] });
          continue;
        }
        window.push({ block, events: await readBlock(toHeader(raw), latest) });
      }
      return { window, unknown };
    },
  };
}
