import { parseEther, type Address, type Hash } from "viem";
import { confirmTransactions, deployContract } from "../deployContract.js";
import type { ChainStepContext, DevnetContracts } from "../deploySteps.js";
import { subtensorStateAbi, subtensorStateBytecode } from "../generated/index.js";
import { installPrecompileMocks } from "./precompileMocks.js";
import { devnetHolders, devnetMiner, devnetNetworkStorage, devnetSubnets, devnetValidators } from "./seed.js";
import { devnetStorageEntries } from "./storage/storageEntries.js";

const WEI_PER_RAO = 1_000_000_000n;

/**
 * What the simulator account holds on the native chain: it pays every pool's starting reserves,
 * the Substrate-side stakes and, later, each block's TAO emission (which the chain mints).
 */
export const devnetSimulatorFunds = parseEther("10000000");

/**
 * Generous fixed gas per seeding call: sending without estimating lets a batch go out before the
 * calls it depends on are mined (on an interval-mining chain), while staying far below the block limit.
 */
const SEED_GAS = 1_500_000n;

/** The native chain's Subtensor pieces beyond the chain config's contracts. */
export interface DevnetSubtensor {
  /** `SubtensorState`, the state behind the precompile mocks; only the simulator account changes it. */
  state: Address;
}

/**
 * Deploys the state contract, places the precompile mocks, and seeds subnets, neurons and stakes.
 * Returns no chain-config contract (the coin/USD feed is on the origin chain: oracle/deployPriceFeed)
 * and the state address.
 */
export async function deploySubtensor(
  context: ChainStepContext,
): Promise<{ contracts: Partial<DevnetContracts>; subtensor: DevnetSubtensor }> {
  const simulator = context.simulator.account.address;
  await context.testClient.setBalance({ address: simulator, value: devnetSimulatorFunds });
  const state = await deployContract(context, { abi: subtensorStateAbi, bytecode: subtensorStateBytecode, args: [simulator] });
  await installPrecompileMocks(context, state);
  await seedSubtensorState(context, state);
  await seedRawStorage(context, state);
  return { contracts: {}, subtensor: { state } };
}

/**
 * The storage items StorageQuery (0x…0807) answers: one transaction per group of entries. Runs after
 * the stakes, because `TotalIssuance` starts from the TAO the seeded pools then hold.
 */
async function seedRawStorage(context: ChainStepContext, state: Address): Promise<void> {
  let pooled = 0n;
  for (const subnet of devnetSubnets) {
    pooled += (await context.publicClient.readContract({ address: state, abi: subtensorStateAbi, functionName: "pool", args: [subnet.netuid] })).taoIn;
  }
  const sent: { what: string; hash: Hash }[] = [];
  for (const group of devnetStorageEntries(pooled + devnetNetworkStorage.freeIssuanceRao)) {
    const hash = await context.simulator.writeContract({
      address: state,
      abi: subtensorStateAbi,
      functionName: "setRawStorage",
      args: [group.map((entry) => entry.key), group.map((entry) => entry.value)],
      gas: SEED_GAS,
    });
    sent.push({ what: `storage ${group.map((entry) => entry.what).join(", ")}`, hash });
  }
  await confirmTransactions(context.publicClient, sent);
}

/** Three batches, each confirmed before the next: subnets, then their UIDs, then scores and stakes. */
async function seedSubtensorState(context: ChainStepContext, state: Address): Promise<void> {
  const send = (what: string, request: Promise<Hash>) => request.then((hash) => ({ what, hash }));
  const write = context.simulator.writeContract.bind(context.simulator);
  const noAxon = { block: 0n, version: 0, ip: 0n, port: 0, ip_type: 4, protocol: 0 };

  const subnets = [];
  for (const subnet of devnetSubnets) {
    subnets.push(
      await send(
        `register subnet ${subnet.netuid}`,
        write({
          address: state,
          abi: subtensorStateAbi,
          functionName: "registerSubnet",
          args: [subnet.netuid, subnet.mechanism, subnet.taoIn, subnet.alphaIn, subnet.emaPriceHalvingBlocks, subnet.hyperparameters],
          value: subnet.taoIn * WEI_PER_RAO,
          gas: SEED_GAS,
        }),
      ),
    );
  }
  await confirmTransactions(context.publicClient, subnets);

  // UIDs in a fixed order (validators first, then miners), so each neuron's UID is known without reading it back.
  const neurons: { what: string; hash: Hash }[] = [];
  const scores: { netuid: number; uid: number; validator: boolean; seed: number }[] = [];
  for (const subnet of devnetSubnets) {
    let uid = 0;
    const operators = devnetValidators.filter((validator) => validator.subnets.includes(subnet.netuid));
    const members = [
      ...operators.map((validator) => ({ ...validator, validator: true })),
      ...Array.from({ length: subnet.miners }, (_, index) => ({ ...devnetMiner(subnet.netuid, index), validator: false })),
    ];
    for (const member of members) {
      const axon = { ...noAxon, ip: 0x7f000001n + BigInt(uid), port: 8091 + uid, version: 1 };
      neurons.push(
        await send(
          `register uid ${uid} on subnet ${subnet.netuid}`,
          write({
            address: state,
            abi: subtensorStateAbi,
            functionName: "registerNeuron",
            args: [subnet.netuid, member.hotkey, member.coldkey, axon],
            gas: SEED_GAS,
          }),
        ),
      );
      scores.push({ netuid: subnet.netuid, uid, validator: member.validator, seed: subnet.netuid * 7 + uid });
      uid++;
    }
  }
  await confirmTransactions(context.publicClient, neurons);

  const rest: { what: string; hash: Hash }[] = [];
  for (const score of scores) {
    // Spread-out but fixed u16 scores: validators earn dividends and vtrust, miners incentive.
    const spread = (factor: number) => (score.seed * factor) % 65_536;
    rest.push(
      await send(
        `scores of uid ${score.uid} on subnet ${score.netuid}`,
        write({
          address: state,
          abi: subtensorStateAbi,
          functionName: "setNeuronScores",
          args: [
            score.netuid,
            score.uid,
            spread(9_973),
            score.validator ? 0 : spread(7_919),
            score.validator ? spread(6_007) : 0,
            score.validator ? 40_000 + (spread(3_001) % 25_000) : 0,
            score.validator,
            true,
          ],
          gas: SEED_GAS,
        }),
      ),
    );
  }
  const stakes = [
    ...devnetValidators.flatMap((validator) =>
      validator.subnets.map((netuid) => ({ coldkey: validator.coldkey, hotkey: validator.hotkey, netuid, tao: validator.selfStake })),
    ),
    ...devnetHolders.flatMap((holder) =>
      holder.stakes.map((stake) => ({ coldkey: holder.coldkey, hotkey: devnetValidators[stake.validator]!.hotkey, netuid: stake.netuid, tao: stake.tao })),
    ),
  ];
  for (const stake of stakes) {
    rest.push(
      await send(
        `stake ${stake.tao} rao on subnet ${stake.netuid}`,
        write({
          address: state,
          abi: subtensorStateAbi,
          functionName: "stakeFor",
          args: [stake.coldkey, stake.hotkey, stake.tao, stake.netuid],
          value: stake.tao * WEI_PER_RAO,
          gas: SEED_GAS,
        }),
      ),
    );
  }
  await confirmTransactions(context.publicClient, rest);
}
