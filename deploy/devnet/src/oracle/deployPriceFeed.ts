import {
  type Account,
  type Address,
  type Chain,
  type HttpTransport,
  parseEther,
  type TestClient,
  type WalletClient,
} from "viem";
import { type DeployContext, deployContract } from "../deployContract.js";
import { priceFeedAggregatorMockAbi, priceFeedAggregatorMockBytecode } from "../generated/index.js";

/** The devnet TAO/USD feed: 8 decimals like Chainlink's USD feeds, starting at $320. */
export const devnetPriceFeed = { decimals: 8, description: "TAO / USD", initialAnswer: 320_00000000n } as const;

/** Native coin the simulator holds on the feed's chain: gas for its rounds, many times over. */
export const devnetPriceUpdaterFunds = parseEther("100");

/**
 * Deploys the Chainlink-style TAO/USD aggregator with the simulator as its only updater, and gives
 * the simulator gas on this chain. The constructor publishes the first round (`AnswerUpdated`).
 */
export async function deployPriceFeed(
  context: DeployContext & {
    testClient: TestClient<"anvil", HttpTransport, Chain>;
    simulator: WalletClient<HttpTransport, Chain, Account>;
  },
): Promise<Address> {
  const updater = context.simulator.account.address;
  // Topped up, never lowered: on a chain where another step funded the simulator for more, that stands.
  const balance = await context.publicClient.getBalance({ address: updater });
  if (balance < devnetPriceUpdaterFunds)
    await context.testClient.setBalance({ address: updater, value: devnetPriceUpdaterFunds });
  return deployContract(context, {
    abi: priceFeedAggregatorMockAbi,
    bytecode: priceFeedAggregatorMockBytecode,
    args: [devnetPriceFeed.decimals, devnetPriceFeed.description, updater, devnetPriceFeed.initialAnswer],
  });
}
