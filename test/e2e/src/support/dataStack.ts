import { NATIVE_DEV_ACCOUNT_NAMES, readNativeInteger } from "@platform/devnet";
import {
  authCli,
  freePorts,
  type RunningStack,
  type SubstrateDescriptor,
  silentProgress,
  startStack,
  testRuntime,
} from "@platform/local-stack";
import { createPriceFeedMover, type PriceFeedMover, type SubmittedRound } from "@platform/simulator";
import { tempDir } from "@platform/testing";
import type { Address, Chain, HttpTransport, PublicClient } from "viem";
import { connectNativeDriver, type KeyringPair, type NativeCallSpec, type NativeDriver } from "./nativeDriver.js";
import { connectRuntime, type RuntimeReads } from "./nativeRuntime.js";

/*
 * Test support for the Data API end-to-end tests: a whole local stack whose native network is the
 * real Subtensor runtime (seeded by the stack) with no block timer, so the test builds every block
 * itself; the TAO/USD feed on the origin chain; an API token with data:read; and two clients of the
 * runtime: one that signs and builds blocks (support/nativeDriver.ts), one that only reads and
 * decodes independently of the service (support/nativeRuntime.ts).
 *
 * Why the test builds the blocks instead of a timer and the stack's simulator: the reorganisation
 * test needs a chain nobody else extends while it moves the head back, and the paging tests need
 * the state to hold still while they read; a loop in the test can be paused between blocks, a
 * timer or another process cannot.
 */

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface DataApi {
  base: string;
  token: string;
  get(path: string): Promise<{ status: number; contentType: string; body: Json }>;
  /** GET expecting 200; the body. */
  ok(path: string): Promise<Json>;
}

/** The native network as the stack describes it, with the test's clients of it. */
export interface NativeNetwork {
  descriptor: SubstrateDescriptor;
  driver: NativeDriver;
  runtime: RuntimeReads;
  /** The seeded subnets with the hotkey each was registered with (`SubnetOwnerHotkey`) and their owner, a dev account. */
  subnets: SeededSubnet[];
}

export interface SeededSubnet {
  netuid: number;
  ownerHotkey: string;
  owner: KeyringPair;
}

/** The chain carrying the coin/USD feed (the stack's origin chain), and the feed. */
export interface PriceChain {
  chainId: number;
  rpcUrl: string;
  priceFeed: Address;
  publicClient: PublicClient<HttpTransport, Chain>;
  /** Submits rounds signing as the simulator, the feed's updater. */
  mover: PriceFeedMover;
}

/** Network activity in the background: one native block of stakes and a transfer (and a price round) after another, until paused or stopped. */
export interface NetworkActivity {
  /** Steps completed so far. */
  steps(): number;
  /** Resolves once the step in progress (if any) has finished and no new one will start. */
  pause(): Promise<void>;
  resume(): void;
  /** The last error of a step, if one failed (a failed step does not stop the loop). */
  lastError(): unknown;
  /** The price feed chain's block of the last round a step submitted (mined), if any. */
  lastPriceRoundBlock(): bigint | undefined;
}

export interface DataStack {
  stack: RunningStack;
  api: DataApi;
  native: NativeNetwork;
  price: PriceChain;
  activity: NetworkActivity;
  stop(): Promise<void>;
}

export async function startDataStack(name: string): Promise<DataStack> {
  const state = tempDir(name);
  const start = async () =>
    startStack({
      stateDir: state.path,
      ports: await freePorts(),
      detached: false,
      runtime: testRuntime(),
      progress: silentProgress,
      simulator: false,
      nativeNetwork: true,
      // No block timer: every native block is the test's (see above).
      nativeBlockTimeMs: 0,
    });
  // A free port can be taken by another process before the service binds it: one more try, for that cause only.
  const stack = await start().catch((error: Error) => {
    if (!/EADDRINUSE/.test(error.message)) throw error;
    return start();
  });
  const closers: (() => Promise<void>)[] = [];
  try {
    const api = await dataApi(stack, `e2e-${name}`);
    const substrate = stack.descriptor.substrate;
    if (substrate === undefined) throw new Error("the local stack has no native network");
    const feedChain = stack.descriptor.chains.find((chain) => chain.contracts["priceFeed"] !== undefined);
    if (feedChain === undefined) throw new Error("the local stack has no chain with a price feed");
    const priceFeed = feedChain.contracts["priceFeed"] as Address;
    const mover = await createPriceFeedMover({
      rpcUrl: feedChain.rpcUrl,
      simulatorKey: stack.devnetAccounts!.simulator.privateKey,
      priceFeed,
      seed: name,
    });
    const price: PriceChain = {
      chainId: feedChain.chainId,
      rpcUrl: feedChain.rpcUrl,
      priceFeed,
      publicClient: mover.publicClient,
      mover,
    };
    const driver = await connectNativeDriver(substrate.rpcUrl, substrate.httpUrl);
    closers.push(() => driver.close());
    const runtime = await connectRuntime(substrate.rpcUrl);
    closers.push(() => runtime.close());
    const devByAddress = new Map(NATIVE_DEV_ACCOUNT_NAMES.map((name) => [driver.dev(name).address, driver.dev(name)]));
    const subnets = await Promise.all(
      substrate.netuids.map(async (netuid): Promise<SeededSubnet> => {
        const module = driver.chain.api.query.subtensorModule!;
        const [ownerHotkey, owner] = await Promise.all([
          module.subnetOwnerHotkey!(netuid),
          module.subnetOwner!(netuid),
        ]);
        const pair = devByAddress.get(String(owner));
        if (pair === undefined) throw new Error(`subnet ${netuid} is owned by ${String(owner)}, not a dev account`);
        return { netuid, ownerHotkey: String(ownerHotkey), owner: pair };
      }),
    );
    const native: NativeNetwork = { descriptor: substrate, driver, runtime, subnets };
    const activity = runActivity(native, mover);
    closers.unshift(() => activity.stop());
    return {
      stack,
      api,
      native,
      price,
      activity,
      stop: async () => {
        for (const close of closers) await close().catch(() => undefined);
        await stack.stop();
        state.remove();
      },
    };
  } catch (error) {
    for (const close of closers) await close().catch(() => undefined);
    await stack.stop();
    state.remove();
    throw error;
  }
}

/** A Data API client of the stack's gateway, with a token of a new `data:read` key (unlimited tier) named `keyName`. */
export async function dataApi(stack: RunningStack, keyName: string): Promise<DataApi> {
  const base = stack.descriptor.gatewayUrl;
  const auth = stack.descriptor.processes.find((entry) => entry.name === "auth")!;
  const key = JSON.parse(
    await authCli(
      testRuntime(),
      ["keys", "create", "--name", keyName, "--scopes", "data:read", "--tier", "unlimited", "--json"],
      { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! },
    ),
  ) as {
    id: string;
    secret: string;
  };
  const issued = await fetch(`${base}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  const token = ((await issued.json()) as { access_token: string }).access_token;
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return {
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      body: (await response.json()) as Json,
    };
  };
  return {
    base,
    token,
    get,
    ok: async (path) => {
      const answer = await get(path);
      if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
  };
}

const RAO_PER_TAO = 1_000_000_000n;

/**
 * One step: Eve stakes on one seeded subnet (a different one each step) and unstakes half of what
 * she holds on the subnet before it, Ferdie pays Bob, all in one new block; and the feed gets a round. Pools move by the trades
 * and by the block's emission, balances by the transfer and fees.
 */
async function step(native: NativeNetwork, mover: PriceFeedMover, index: number): Promise<SubmittedRound> {
  const { driver, subnets } = native;
  const eve = driver.dev("Eve");
  const target = subnets[index % subnets.length]!;
  const previous = subnets[(index + subnets.length - 1) % subnets.length]!;
  const held = await readNativeInteger(
    driver.chain.api,
    "subtensorModule",
    "alpha",
    previous.ownerHotkey,
    eve.address,
    previous.netuid,
  );
  const calls: NativeCallSpec[] = [
    {
      tx: driver.tx("subtensorModule", "addStake")(
        target.ownerHotkey,
        target.netuid,
        2n * RAO_PER_TAO + BigInt(index) * 10_000_000n,
      ),
      signer: eve,
    },
    {
      tx: driver.tx("balances", "transferKeepAlive")(driver.dev("Bob").address, RAO_PER_TAO + BigInt(index)),
      signer: driver.dev("Ferdie"),
    },
  ];
  if (held > 2n && previous.netuid !== target.netuid)
    calls.push({
      tx: driver.tx("subtensorModule", "removeStake")(previous.ownerHotkey, previous.netuid, held / 2n),
      signer: eve,
    });
  // The price round goes out beside the block: the feed is on another chain, so they never contend.
  const [, round] = await Promise.all([driver.block(calls), mover.submitRound()]);
  return round;
}

function runActivity(native: NativeNetwork, mover: PriceFeedMover): NetworkActivity & { stop(): Promise<void> } {
  let paused = false;
  let stopped = false;
  let steps = 0;
  let lastError: unknown;
  let lastRoundBlock: bigint | undefined;
  let current: Promise<void> = Promise.resolve();
  let wake: (() => void) | undefined;
  const loop = async () => {
    while (!stopped) {
      if (paused) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      current = step(native, mover, steps).then(
        (round) => {
          steps += 1;
          lastRoundBlock = round.blockNumber;
        },
        (error: unknown) => {
          lastError = error;
        },
      );
      await current;
      // A breath between blocks, so the services' reads and the test's own blocks get the cores too.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  };
  const done = loop();
  return {
    steps: () => steps,
    lastError: () => lastError,
    lastPriceRoundBlock: () => lastRoundBlock,
    pause: async () => {
      paused = true;
      await current;
    },
    resume: () => {
      paused = false;
      wake?.();
      wake = undefined;
    },
    stop: async () => {
      stopped = true;
      wake?.();
      await done;
    },
  };
}
