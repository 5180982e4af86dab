import { authCli, freePorts, silentProgress, startStack, testRuntime, type RunningStack } from "@platform/local-stack";
import { createNetworkContext, createPriceFeedMover, simulateNetworkStep, type NetworkContext, type PriceFeedMover } from "@platform/simulator";
import { tempDir } from "@platform/testing";
import { createPublicClient, createTestClient, http, type Address, type Chain, type HttpTransport, type PublicClient, type TestClient } from "viem";

/*
 * Test support for the Data API end-to-end tests: a whole local stack whose native (Subtensor-like)
 * chain is driven by the test itself with the network simulator's steps, whose TAO/USD feed (on the
 * origin chain) gets a round with each step, an API token with data:read, and viem clients on those
 * chains for the reads the answers are compared with.
 *
 * Why the test drives the steps instead of the stack's simulator process: the reorganisation test
 * needs a chain nobody else writes to while it snapshots and reverts, and sendTransfers must not race
 * another process for nonces; a loop in the test can be paused at a step boundary, a process cannot.
 */

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface DataApi {
  base: string;
  token: string;
  get(path: string): Promise<{ status: number; contentType: string; body: Json }>;
  /** GET expecting 200; the body. */
  ok(path: string): Promise<Json>;
}

export interface NativeChain {
  rpcUrl: string;
  publicClient: PublicClient<HttpTransport, Chain>;
  testClient: TestClient<"anvil", HttpTransport, Chain>;
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

/** Network activity in the background: one simulator step (and price round) after another until paused or stopped. */
export interface NetworkActivity {
  /** Steps completed so far. */
  steps(): number;
  /** Resolves once the step in progress (if any) has finished and no new one will start. */
  pause(): Promise<void>;
  resume(): void;
  /** The last error of a step, if one failed (a failed step does not stop the loop). */
  lastError(): unknown;
}

export interface DataStack {
  stack: RunningStack;
  api: DataApi;
  native: NativeChain;
  price: PriceChain;
  network: NetworkContext;
  activity: NetworkActivity;
  stop(): Promise<void>;
}

export async function startDataStack(name: string): Promise<DataStack> {
  const state = tempDir(name);
  const start = async () =>
    startStack({ stateDir: state.path, ports: await freePorts(), detached: false, runtime: testRuntime(), progress: silentProgress, simulator: false });
  // A free port can be taken by another process before the service binds it: one more try, for that cause only.
  const stack = await start().catch((error: Error) => {
    if (!/EADDRINUSE/.test(error.message)) throw error;
    return start();
  });
  let activity: (NetworkActivity & { stop(): Promise<void> }) | undefined;
  try {
    const api = await dataApi(stack, `e2e-${name}`);
    const described = stack.descriptor.chains.find((chain) => chain.name === "subtensor");
    if (described === undefined) throw new Error("the local stack has no native chain");
    const feedChain = stack.descriptor.chains.find((chain) => chain.contracts["priceFeed"] !== undefined);
    if (feedChain === undefined) throw new Error("the local stack has no chain with a price feed");
    const priceFeed = feedChain.contracts["priceFeed"] as Address;
    const mover = await createPriceFeedMover({ rpcUrl: feedChain.rpcUrl, simulatorKey: stack.devnetAccounts!.simulator.privateKey, priceFeed, seed: name });
    const price: PriceChain = { chainId: feedChain.chainId, rpcUrl: feedChain.rpcUrl, priceFeed, publicClient: mover.publicClient, mover };
    const network = await createNetworkContext({
      rpcUrl: described.rpcUrl,
      simulatorKey: stack.devnetAccounts!.simulator.privateKey,
      seed: name,
      accountCount: 4,
    });
    const transport = http(described.rpcUrl, { timeout: 30_000 });
    const native: NativeChain = {
      rpcUrl: described.rpcUrl,
      publicClient: createPublicClient({ chain: network.chain, transport, pollingInterval: 100 }),
      testClient: createTestClient({ chain: network.chain, transport, mode: "anvil" }),
    };
    activity = runActivity(network, mover);
    const running = activity;
    return {
      stack,
      api,
      native,
      price,
      network,
      activity: running,
      stop: async () => {
        await running.stop();
        await stack.stop();
        state.remove();
      },
    };
  } catch (error) {
    await activity?.stop();
    await stack.stop();
    state.remove();
    throw error;
  }
}

async function dataApi(stack: RunningStack, keyName: string): Promise<DataApi> {
  const base = stack.descriptor.gatewayUrl;
  const auth = stack.descriptor.processes.find((entry) => entry.name === "auth")!;
  const key = JSON.parse(await authCli(testRuntime(), ["keys", "create", "--name", keyName, "--scopes", "data:read", "--tier", "unlimited", "--json"], { AUTH_GRPC_TARGET: auth.grpcTarget! })) as {
    id: string;
    secret: string;
  };
  const issued = await fetch(`${base}/auth`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }) });
  const token = ((await issued.json()) as { access_token: string }).access_token;
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, contentType: response.headers.get("content-type") ?? "", body: (await response.json()) as Json };
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

function runActivity(network: NetworkContext, mover: PriceFeedMover): NetworkActivity & { stop(): Promise<void> } {
  let paused = false;
  let stopped = false;
  let steps = 0;
  let lastError: unknown;
  let current: Promise<void> = Promise.resolve();
  let wake: (() => void) | undefined;
  const loop = async () => {
    while (!stopped) {
      if (paused) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      // The price round goes out beside the step: the feed is on another chain, so they never contend.
      current = Promise.all([simulateNetworkStep(network), mover.submitRound()]).then(
        () => {
          steps += 1;
        },
        (error: unknown) => {
          lastError = error;
        },
      );
      await current;
    }
  };
  const done = loop();
  return {
    steps: () => steps,
    lastError: () => lastError,
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
