/**
 * The subnets read model in Redis (`rm:subnets:` prefix), written only by the projector's `subnets`
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
 * - `rm:subnets:subnet:<netuid>:points` SubnetSnapshot (newest 64).
 * - `rm:subnets:validators:<netuid>:points` ValidatorSetSnapshot (newest 8; whole metagraphs).
 * - `rm:subnets:validator-flags:<netuid>:points` the same snapshots with each neuron cut to its uid,
 *   `validator_permit` and `active`, and its coldkey and identity name where it has one (newest 8):
 *   what `subnets/latest` counts and `holders/top` names, a small part of the whole metagraph, so
 *   those reads do not move whole metagraphs.
 * - `rm:subnets:pool:<netuid>:points` PoolSnapshot (newest 64).
 * - `rm:subnets:emission:<netuid>:points` EmissionSnapshot (newest 64).
 * - `rm:subnets:holders:<netuid>:points` complete holder sets: every chunk of a block merged into
 *   one HolderPositions (chunk_count 1; newest 4).
 * - `rm:subnets:netuids` set of netuids with a standing SubnetSnapshot or ValidatorSetSnapshot newer
 *   than the subnet's removal.
 * - `rm:subnets:removed-subnets` hash netuid -> `<block>:<hash>` of the subnet's removal
 *   (SubnetRemoved; the projector's shared/subnetRemovals.ts).
 *
 * Holder rankings of the newest complete holder set (replaced whole with it):
 * - `rm:subnets:holders:<netuid>:coldkeys` zset, every score 0, member
 *   `<10^24-1-alpha, 24 digits>:<coldkey public key>`: read BYLEX it is alpha descending, ties by
 *   public key. Only holdings above zero.
 * - `rm:subnets:holders:<netuid>:coldkey-rows` hash public key -> JSON
 *   `{coldkey: AccountId, alpha, hotkeys: [{hotkey: AccountId, alpha}]}` (alpha in nalpha).
 * - `rm:subnets:holders:<netuid>:positions` zset as above, member `<inverted alpha>:<coldkey>:<hotkey>`.
 * - `rm:subnets:holders:<netuid>:position-rows` hash `<coldkey>:<hotkey>` -> JSON `{coldkey, hotkey, alpha}`.
 * - `rm:subnets:holders:<netuid>:ranked` string: the ordinal and block hash (`<o>:<hash>`) of the
 *   holder set the rankings show; equal to the newest holders point once a batch commits.
 * - `rm:subnets:holders:<netuid>:ranked-head` JSON `{tag, ref, coverage}` of that set (tag as in
 *   `ranked`, ref its ChainRef): what a page needs of the set besides its rows, without moving the
 *   whole set (written and removed with `ranked`).
 *
 * Projection state: `rm:subnets:holders:<netuid>:chunks` hash `<blockHash>:<chunkIndex>` -> base64
 * HolderPositions, chunks of a block not yet complete; `rm:subnets:offset:<topic>:<partition>`;
 * `rm:subnets:projection` marker (its loss makes the supervisor replay from offset 0);
 * `rm:subnets:version` a token every commit replaces (versions.ts).
 */
export const subnetsKeys = {
  subnetPoints: (netuid: number) => `rm:subnets:subnet:${netuid}:points`,
  validatorPoints: (netuid: number) => `rm:subnets:validators:${netuid}:points`,
  validatorFlagPoints: (netuid: number) => `rm:subnets:validator-flags:${netuid}:points`,
  poolPoints: (netuid: number) => `rm:subnets:pool:${netuid}:points`,
  emissionPoints: (netuid: number) => `rm:subnets:emission:${netuid}:points`,
  holderPoints: (netuid: number) => `rm:subnets:holders:${netuid}:points`,
  netuids: "rm:subnets:netuids",
  holderColdkeys: (netuid: number) => `rm:subnets:holders:${netuid}:coldkeys`,
  holderColdkeyRows: (netuid: number) => `rm:subnets:holders:${netuid}:coldkey-rows`,
  holderPositions: (netuid: number) => `rm:subnets:holders:${netuid}:positions`,
  holderPositionRows: (netuid: number) => `rm:subnets:holders:${netuid}:position-rows`,
  holderRanked: (netuid: number) => `rm:subnets:holders:${netuid}:ranked`,
  holderRankedHead: (netuid: number) => `rm:subnets:holders:${netuid}:ranked-head`,
  holderChunks: (netuid: number) => `rm:subnets:holders:${netuid}:chunks`,
  removedSubnets: "rm:subnets:removed-subnets",
  offset: (topic: string, partition: number) => `rm:subnets:offset:${topic}:${partition}`,
  marker: "rm:subnets:projection",
} as const;
