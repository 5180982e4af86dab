import type { ChainRole } from "@platform/chain";
import {
  type Account,
  type Address,
  type Chain,
  type Hash,
  type HttpTransport,
  maxUint256,
  pad,
  parseEther,
  parseUnits,
  type TestClient,
  type WalletClient,
} from "viem";
import {
  awaitDeployment,
  confirmTransactions,
  type DeployContext,
  deployContract,
  sendDeployment,
} from "./deployContract.js";
import {
  erc6492WalletFactoryAbi,
  erc6492WalletFactoryBytecode,
  fullSettlerAbi,
  fullSettlerBytecode,
  multicall3Abi,
  multicall3Bytecode,
  testTokenAbi,
  testTokenBytecode,
} from "./generated/index.js";
import { deployPriceFeed } from "./oracle/deployPriceFeed.js";

/** Every devnet contract by the key it is reported under; optional keys exist only on chains of some roles. */
export interface DevnetContracts {
  /** Every chain: the ingestor batches its reads through it, and viem's multicall needs it. */
  multicall3: Address;
  /** Every chain: CREATE2 factory of ERC-1271 test wallets, for sign-in with contract accounts (ERC-6492). */
  walletFactory: Address;
  /** Origin and destination chains: the ERC-7683 settler, one contract serving both sides. */
  fullSettler?: Address;
  /** Origin and destination chains: test ERC-20s by symbol (`devnetTokens`). */
  tokens?: Record<string, Address>;
  /**
   * Origin chain: the Chainlink-style TAO/USD aggregator the simulator moves (`contracts.priceFeed`
   * in the chain config, followed by the chain-ingestor's price source).
   */
  priceFeed?: Address;
}

/** What a per-chain step works with: the deployer's clients plus the run's other accounts. */
export interface ChainStepContext extends DeployContext {
  /** What earlier steps deployed on this chain. */
  contracts: Partial<DevnetContracts>;
  testClient: TestClient<"anvil", HttpTransport, Chain>;
  /** Receives the settlers' oracle role; it only needs an address and gas here. */
  oracle: Address;
  /** Signs as the filler, for the approvals that let it fill as soon as the devnet is up. */
  filler: WalletClient<HttpTransport, Chain, Account>;
  /** Signs as the simulator: the only account that may submit price-feed rounds. */
  simulator: WalletClient<HttpTransport, Chain, Account>;
}

export interface DeployStep {
  /** Names the step in errors. */
  name: string;
  /** Chains the step runs on: every chain, or those holding one of the roles. */
  roles: "every" | readonly ChainRole[];
  /** Returns the contracts it deployed; a step that only configures returns none. */
  run(context: ChainStepContext): Promise<Partial<DevnetContracts>>;
}

/** A chain once all its steps have run, as the cross-chain link steps see it. */
export interface DeployedChain {
  name: string;
  chainId: number;
  context: ChainStepContext;
  contracts: DevnetContracts;
}

/** Runs once after every chain is deployed, for configuration that needs another chain's addresses. */
export interface LinkStep {
  name: string;
  run(chains: readonly DeployedChain[]): Promise<void>;
}

/**
 * FullSettler parameters on the devnet. The window is short so the simulator and tests can produce
 * expired orders quickly; the grace is well above the devnet oracle's latency (a few blocks), which
 * the settle/refund race requires (see FullSettler.sol).
 */
export const devnetSettlerParams = {
  minFillWindowSeconds: 30,
  maxFillBufferSeconds: 86_400,
  refundGraceSeconds: 60,
} as const;

/** The test tokens on origin and destination chains, and what the filler holds of each to fill with. */
export const devnetTokens = [
  { symbol: "USDC", name: "Devnet USD Coin", decimals: 6, fillerFunds: parseUnits("1000000", 6) },
  { symbol: "WETH", name: "Devnet Wrapped Ether", decimals: 18, fillerFunds: parseUnits("1000", 18) },
] as const;

/** Native coin set on the role accounts of intent chains: fills of native outputs, and gas. */
export const devnetNativeFunds = { filler: parseEther("1000"), oracle: parseEther("100") } as const;

const intentRoles: readonly ChainRole[] = ["origin", "destination"];

/** What a devnet chain gets, in order (later steps may use earlier addresses). */
export const deploySteps: readonly DeployStep[] = [
  {
    name: "multicall3",
    roles: "every",
    run: async (context) => ({
      multicall3: await deployContract(context, { abi: multicall3Abi, bytecode: multicall3Bytecode }),
    }),
  },
  {
    // The deployer becomes the owner; peers are set by the link step once every settler exists.
    name: "fullSettler",
    roles: intentRoles,
    run: async (context) => ({
      fullSettler: await deployContract(context, {
        abi: fullSettlerAbi,
        bytecode: fullSettlerBytecode,
        args: [
          context.oracle,
          devnetSettlerParams.minFillWindowSeconds,
          devnetSettlerParams.maxFillBufferSeconds,
          devnetSettlerParams.refundGraceSeconds,
        ],
      }),
    }),
  },
  {
    // Before the tokens: the filler pays gas for its approvals there.
    name: "role account funds",
    roles: intentRoles,
    run: async (context) => {
      await context.testClient.setBalance({ address: context.filler.account.address, value: devnetNativeFunds.filler });
      await context.testClient.setBalance({ address: context.oracle, value: devnetNativeFunds.oracle });
      return {};
    },
  },
  {
    name: "tokens",
    roles: intentRoles,
    run: async (context) => {
      const creations: Hash[] = [];
      for (const token of devnetTokens) {
        creations.push(
          await sendDeployment(context, {
            abi: testTokenAbi,
            bytecode: testTokenBytecode,
            args: [token.name, token.symbol, token.decimals],
          }),
        );
      }
      const addresses = await Promise.all(creations.map((hash) => awaitDeployment(context, hash)));
      const tokens: Record<string, Address> = {};
      devnetTokens.forEach((token, index) => {
        tokens[token.symbol] = addresses[index]!;
      });

      const sent: { what: string; hash: Hash }[] = [];
      for (const token of devnetTokens) {
        const hash = await context.walletClient.writeContract({
          address: tokens[token.symbol]!,
          abi: testTokenAbi,
          functionName: "mint",
          args: [context.filler.account.address, token.fillerFunds],
        });
        sent.push({ what: `mint ${token.symbol} to the filler`, hash });
      }
      const settler = context.contracts.fullSettler;
      if (settler !== undefined) {
        for (const token of devnetTokens) {
          const hash = await context.filler.writeContract({
            address: tokens[token.symbol]!,
            abi: testTokenAbi,
            functionName: "approve",
            args: [settler, maxUint256],
          });
          sent.push({ what: `filler approves ${token.symbol} to the FullSettler`, hash });
        }
      }
      await confirmTransactions(context.publicClient, sent);
      return { tokens };
    },
  },
  {
    name: "walletFactory",
    roles: "every",
    run: async (context) => ({
      walletFactory: await deployContract(context, {
        abi: erc6492WalletFactoryAbi,
        bytecode: erc6492WalletFactoryBytecode,
      }),
    }),
  },
  {
    // The coin/USD feed lives on the origin chain, which is there in every stack; the native network
    // (the real Subtensor runtime) is no EVM chain of the devnet.
    name: "priceFeed",
    roles: ["origin"],
    run: async (context) => ({ priceFeed: await deployPriceFeed(context) }),
  },
];

/** Cross-chain configuration, run after every chain's steps. */
export const linkSteps: readonly LinkStep[] = [
  {
    // Every settler peers with every other, so each route works in both directions: an order can be
    // opened towards any other settler chain, and fills of orders from it are accepted.
    name: "fullSettler peers",
    run: async (chains) => {
      const settlers = chains.flatMap((chain) =>
        chain.contracts.fullSettler === undefined ? [] : [{ chain, settler: chain.contracts.fullSettler }],
      );
      await Promise.all(
        settlers.map(async ({ chain, settler }) => {
          const sent: { what: string; hash: Hash }[] = [];
          for (const other of settlers) {
            if (other.chain === chain) continue;
            const hash = await chain.context.walletClient.writeContract({
              address: settler,
              abi: fullSettlerAbi,
              functionName: "setPeer",
              args: [BigInt(other.chain.chainId), pad(other.settler)],
            });
            sent.push({ what: `${chain.name} peers with ${other.chain.name}`, hash });
          }
          await confirmTransactions(chain.context.publicClient, sent);
        }),
      );
    },
  },
];
