import { priceFeedAggregatorMockAbi } from "@platform/devnet";
import { priceFeedAbi } from "@platform/subtensor";
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hash,
  type Hex,
  type HttpTransport,
  http,
  type PublicClient,
  parseEventLogs,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type NetworkRandom, networkRandom } from "../random.js";

export interface PriceFeedMoverOptions {
  /** RPC of the chain carrying the feed (the devnet's origin chain). */
  rpcUrl: string;
  /** `accounts.simulator` of the deployment: the feed's only updater. */
  simulatorKey: Hex;
  /** `contracts.priceFeed` of that chain. */
  priceFeed: Address;
  /** Same seed, same walk of answers. Defaults to `"devnet"`. */
  seed?: string;
}

/** One submitted round, mined. */
export interface SubmittedRound {
  hash: Hash;
  roundId: bigint;
  answer: bigint;
  blockNumber: bigint;
}

export interface PriceFeedMover {
  chain: Chain;
  publicClient: PublicClient<HttpTransport, Chain>;
  priceFeed: Address;
  /** Submits the next round (a random walk of the latest answer) and waits until it is mined. */
  submitRound(): Promise<SubmittedRound>;
  /** Rounds submitted so far. */
  rounds(): number;
}

/** A fixed limit: `submit` writes one round and emits two events, far below it. */
const SUBMIT_GAS = 200_000n;
/** The answer never falls below one cent (8 decimals). */
const FLOOR_ANSWER = 1_000_000n;

/** Moves the devnet's Chainlink-style coin/USD feed, as the price oracle would, signing as the simulator. */
export async function createPriceFeedMover(options: PriceFeedMoverOptions): Promise<PriceFeedMover> {
  const probe = createPublicClient({ transport: http(options.rpcUrl) });
  const chain = defineChain({
    id: await probe.getChainId(),
    name: "price-feed",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const transport = http(options.rpcUrl, { timeout: 15_000, retryCount: 2 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 100 });
  const updater: WalletClient<HttpTransport, Chain, Account> = createWalletClient({
    chain,
    transport,
    account: privateKeyToAccount(options.simulatorKey),
    pollingInterval: 100,
  });
  const random = networkRandom(`${options.seed ?? "devnet"}:price`);
  let rounds = 0;

  return {
    chain,
    publicClient,
    priceFeed: options.priceFeed,
    rounds: () => rounds,
    async submitRound() {
      const answer = nextAnswer(
        random,
        await publicClient.readContract({
          address: options.priceFeed,
          abi: priceFeedAbi,
          functionName: "latestAnswer",
        }),
      );
      const hash = await updater.writeContract({
        address: options.priceFeed,
        abi: priceFeedAggregatorMockAbi,
        functionName: "submit",
        args: [answer],
        gas: SUBMIT_GAS,
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
      if (receipt.status !== "success") throw new Error(`price feed round (${hash}) reverted`);
      const [updated] = parseEventLogs({ abi: priceFeedAbi, eventName: "AnswerUpdated", logs: receipt.logs });
      if (updated === undefined) throw new Error(`price feed round (${hash}) emitted no AnswerUpdated`);
      rounds += 1;
      return { hash, roundId: updated.args.roundId, answer: updated.args.current, blockNumber: receipt.blockNumber };
    },
  };
}

/** A random walk of at most ±1% a round, never below the floor. */
export function nextAnswer(random: NetworkRandom, current: bigint): bigint {
  const basisPoints = BigInt(random.int(201) - 100);
  const next = current + (current * basisPoints) / 10_000n;
  return next > FLOOR_ANSWER ? next : FLOOR_ANSWER;
}
