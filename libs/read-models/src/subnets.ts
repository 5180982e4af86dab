import { DATA_PREFIX } from "./hashTags.js";
/**
 * The subnets read model in Redis (`rm:{data}:subnets:` prefix), written only by the projector's `subnets`
 * projection (consumer group `projector-subnets`, topic chain.network.v1) and read by data-query's
 * SubnetsService: both import this layout.
 *
 * Snapshot series, one per kind and subnet: zsets of SeriesPoint JSON (series.ts) scored by
 * block * 100000, `p` = base64 of the snapshot's protobuf. The newest point is the latest snapshot,
 * the newest point at or below a block's score is the subnet's state at that block. Every record of
 * a subnet has the key `netuid:<n>` and so one partition: the kinds of one subnet arrive in chain
 * order, and this projection keeps its own copy of the pool and emission snapshots so a subnet's
 * pool summary, epoch blocks and holder values come from the same block as the subnet itself.
 *
 * - `rm:{data}:subnets:subnet:<netuid>:points` SubnetSnapshot (newest 64).
 * - `rm:{data}:subnets:validators:<netuid>:points` ValidatorSetSnapshot (newest 8; whole metagraphs).
 * - `rm:{data}:subnets:validator-flags:<netuid>:points` the same snapshots with each neuron cut to its uid,
 *   `validator_permit` and `active`, and its coldkey and identity name where it has one (newest 8):
 *   what `subnets/latest` counts and `holders/top` names, a small part of the whole metagraph, so
 *   those reads do not move whole metagraphs.
 * - `rm:{data}:subnets:pool:<netuid>:points` PoolSnapshot (newest 64). Their history is the market's
 *   pool series in PostgreSQL, the same snapshots (historySeries.ts): not written twice.
 * - `rm:{data}:subnets:emission:<netuid>:points` EmissionSnapshot (newest 64; history as the pools').
 * - `rm:{data}:subnets:holders:<netuid>:points` complete holder sets: every chunk of a block merged into
 *   one HolderPositions (chunk_count 1; newest 4).
 * - `rm:{data}:subnets:yield-index:<netuid>:points` the subnet's yield index at each epoch that paid
 *   dividends (yieldIndex.ts; `p` is base64 JSON, not protobuf; newest 64).
 * - `rm:{data}:subnets:netuids` set of netuids with a standing SubnetSnapshot or ValidatorSetSnapshot newer
 *   than the subnet's removal.
 * - `rm:{data}:subnets:removed-subnets` hash netuid -> `<block>:<hash>` of the subnet's removal
 *   (SubnetRemoved; the projector's shared/subnetRemovals.ts).
 *
 * Holder rankings of the newest complete holder set (replaced whole with it):
 * - `rm:{data}:subnets:holders:<netuid>:coldkeys` zset, every score 0, member
 *   `<10^24-1-alpha, 24 digits>:<coldkey public key>`: read BYLEX it is alpha descending, ties by
 *   public key. Only holdings above zero.
 * - `rm:{data}:subnets:holders:<netuid>:coldkey-rows` hash public key -> JSON
 *   `{coldkey: AccountId, alpha, hotkeys: [{hotkey: AccountId, alpha}]}` (alpha in nalpha).
 * - `rm:{data}:subnets:holders:<netuid>:positions` zset as above, member `<inverted alpha>:<coldkey>:<hotkey>`.
 * - `rm:{data}:subnets:holders:<netuid>:position-rows` hash `<coldkey>:<hotkey>` -> JSON `{coldkey, hotkey, alpha}`.
 * - `rm:{data}:subnets:holders:<netuid>:ranked` string: the ordinal and block hash (`<o>:<hash>`) of the
 *   holder set the rankings show; equal to the newest holders point once a batch commits.
 * - `rm:{data}:subnets:holders:<netuid>:ranked-head` JSON `{tag, ref, coverage}` of that set (tag as in
 *   `ranked`, ref its ChainRef): what a page needs of the set besides its rows, without moving the
 *   whole set (written and removed with `ranked`).
 *
 * Projection state: `rm:{data}:subnets:holders:<netuid>:chunks` hash `<blockHash>:<chunkIndex>` -> base64
 * HolderPositions, chunks of a block not yet complete; `rm:{data}:subnets:offset:<topic>:<partition>`;
 * `rm:{data}:subnets:projection` marker (its loss makes the supervisor replay from offset 0);
 * `rm:{data}:subnets:version` a token every commit replaces (versions.ts).
 */
export const subnetsKeys = {
  subnetPoints: (netuid: number) => `${DATA_PREFIX}subnets:subnet:${netuid}:points`,
  validatorPoints: (netuid: number) => `${DATA_PREFIX}subnets:validators:${netuid}:points`,
  validatorFlagPoints: (netuid: number) => `${DATA_PREFIX}subnets:validator-flags:${netuid}:points`,
  /**
   * ValidatorRootStakes points: the root stakes that moved on the metagraph since its last
   * ValidatorSetSnapshot point; the metagraph at a block is its newest validators point with every
   * root-stake point after it (through the block) applied in order.
   */
  validatorRootStakePoints: (netuid: number) => `${DATA_PREFIX}subnets:validator-root-stakes:${netuid}:points`,
  poolPoints: (netuid: number) => `${DATA_PREFIX}subnets:pool:${netuid}:points`,
  emissionPoints: (netuid: number) => `${DATA_PREFIX}subnets:emission:${netuid}:points`,
  holderPoints: (netuid: number) => `${DATA_PREFIX}subnets:holders:${netuid}:points`,
  /**
   * The subnet's yield index (yieldIndex.ts): one point per epoch block that paid dividends, each the
   * cumulative nominator dividend per unit of stake weight of every hotkey that ever earned one
   * (newest 64 in Redis, every point in history.series_points).
   */
  yieldIndexPoints: (netuid: number) => `${DATA_PREFIX}subnets:yield-index:${netuid}:points`,
  netuids: `${DATA_PREFIX}subnets:netuids`,
  holderColdkeys: (netuid: number) => `${DATA_PREFIX}subnets:holders:${netuid}:coldkeys`,
  holderColdkeyRows: (netuid: number) => `${DATA_PREFIX}subnets:holders:${netuid}:coldkey-rows`,
  holderPositions: (netuid: number) => `${DATA_PREFIX}subnets:holders:${netuid}:positions`,
  holderPositionRows: (netuid: number) => `${DATA_PREFIX}subnets:holders:${netuid}:position-rows`,
  holderRanked: (netuid: number) => `${DATA_PREFIX}subnets:holders:${netuid}:ranked`,
  holderRankedHead: (netuid: number) => `${DATA_PREFIX}subnets:holders:${netuid}:ranked-head`,
  holderChunks: (netuid: number) => `${DATA_PREFIX}subnets:holders:${netuid}:chunks`,
  removedSubnets: `${DATA_PREFIX}subnets:removed-subnets`,
  offset: (topic: string, partition: number) => `${DATA_PREFIX}subnets:offset:${topic}:${partition}`,
  marker: `${DATA_PREFIX}subnets:projection`,
} as const;
