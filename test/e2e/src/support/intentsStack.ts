import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  authCli,
  freePorts,
  type RunningStack,
  repoRoot,
  silentProgress,
  startStack,
  testRuntime,
} from "@platform/local-stack";
import { tempDir, waitFor } from "@platform/testing";
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type HttpTransport,
  http,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";

/*
 * Test support for the intents end-to-end tests: a whole local stack without the simulator (the
 * tests play user, filler and oracle themselves), an API token, and clients for the two intent chains.
 */

export interface ChainSide {
  chainId: number;
  rpcUrl: string;
  settler: Address;
  usdc: Address;
  weth: Address;
  publicClient: PublicClient<HttpTransport, Chain>;
  testClient: TestClient<"anvil", HttpTransport, Chain>;
  wallet(account: Account): WalletClient<HttpTransport, Chain, Account>;
}

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface IntentsApi {
  post(path: string, body: unknown): Promise<Response>;
  get(path: string): Promise<Response>;
  json(response: Response): Promise<Json>;
  /** GET a record; undefined while it is 404. */
  intent(orderId: string): Promise<Json | undefined>;
}

export interface IntentsStack {
  stack: RunningStack;
  api: IntentsApi;
  origin: ChainSide;
  destination: ChainSide;
  deployer: Account;
  filler: Account;
  oracle: Account;
  stop(): Promise<void>;
}

export interface IntentsStackOptions {
  /** Changes to the local chains template before the devnet is deployed from it (e.g. a short quote lifetime). */
  editTemplate?: (template: Json) => void;
}

export async function startIntentsStack(name: string, options: IntentsStackOptions = {}): Promise<IntentsStack> {
  const state = tempDir(name);
  let chainsTemplate: string | undefined;
  if (options.editTemplate) {
    const template = JSON.parse(
      readFileSync(join(repoRoot, "deploy", "config", "local", "chains.json"), "utf8"),
    ) as Json;
    options.editTemplate(template);
    chainsTemplate = join(state.path, "chains-template.json");
    writeFileSync(chainsTemplate, JSON.stringify(template));
  }
  const start = async () =>
    startStack({
      stateDir: state.path,
      ports: await freePorts(),
      detached: false,
      runtime: testRuntime(),
      progress: silentProgress,
      simulator: false,
      ...(chainsTemplate ? { chainsTemplate } : {}),
    });
  // A free port can be taken by another process on a busy machine before the service binds it: one
  // more try on fresh ports, for that cause only.
  const stack = await start().catch((error: Error) => {
    if (!/EADDRINUSE/.test(error.message)) throw error;
    return start();
  });
  try {
    const base = stack.descriptor.gatewayUrl;
    const token = await issueToken(stack, base, `e2e-${name}`);
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
    const api: IntentsApi = {
      post: (path, body) => fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) }),
      get: (path) => fetch(`${base}${path}`, { headers }),
      json: async (response) => (await response.json()) as Json,
      intent: async (orderId) => {
        const response = await fetch(`${base}/intents/v1/intents/${orderId}`, { headers });
        if (response.status === 404) {
          await response.body?.cancel();
          return undefined;
        }
        if (response.status !== 200)
          throw new Error(`GET intent ${orderId}: ${response.status} ${await response.text()}`);
        return (await response.json()) as Json;
      },
    };
    const accounts = stack.devnetAccounts!;
    return {
      stack,
      api,
      origin: chainSide(stack, 31337),
      destination: chainSide(stack, 31338),
      deployer: privateKeyToAccount(accounts.deployer.privateKey),
      filler: privateKeyToAccount(accounts.filler.privateKey),
      oracle: privateKeyToAccount(accounts.oracle.privateKey),
      stop: async () => {
        await stack.stop();
        state.remove();
      },
    };
  } catch (error) {
    await stack.stop();
    state.remove();
    throw error;
  }
}

async function issueToken(stack: RunningStack, base: string, name: string): Promise<string> {
  return (await newApiKey(stack, name)).token;
}

/** A new API key of the stack (scopes intents:read and intents:write, tier unlimited) and a token of it. */
export async function newApiKey(
  stack: RunningStack,
  name: string,
): Promise<{ id: string; secret: string; token: string; revoke(): Promise<void> }> {
  const auth = stack.descriptor.processes.find((entry) => entry.name === "auth")!;
  const admin = { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! };
  const key = JSON.parse(
    await authCli(
      testRuntime(),
      ["keys", "create", "--name", name, "--scopes", "intents:read,intents:write", "--tier", "unlimited", "--json"],
      admin,
    ),
  ) as {
    id: string;
    secret: string;
  };
  const issued = await fetch(`${stack.descriptor.gatewayUrl}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  const token = ((await issued.json()) as { access_token: string }).access_token;
  return { ...key, token, revoke: async () => void (await authCli(testRuntime(), ["keys", "revoke", key.id], admin)) };
}

function chainSide(stack: RunningStack, chainId: number): ChainSide {
  const described = stack.descriptor.chains.find((chain) => chain.chainId === chainId)!;
  const chain = defineChain({
    id: chainId,
    name: described.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [described.rpcUrl] } },
  });
  const transport = http(described.rpcUrl);
  return {
    chainId,
    rpcUrl: described.rpcUrl,
    settler: described.contracts["fullSettler"] as Address,
    usdc: described.tokens["USDC"] as Address,
    weth: described.tokens["WETH"] as Address,
    publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }),
    testClient: createTestClient({ chain, transport, mode: "anvil" }),
    wallet: (account) => createWalletClient({ chain, transport, account, pollingInterval: 50 }),
  };
}

/** Polls a record until `accept` holds; returns it. */
export function intentBecomes(
  api: IntentsApi,
  orderId: string,
  accept: (record: Json | undefined) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<Json | undefined> {
  return waitFor(
    async () => {
      const record = await api.intent(orderId);
      return accept(record) ? { record } : undefined;
    },
    { what, timeoutMs, intervalMs: 50 },
  ).then((found) => found.record);
}

/** Moves a chain's clock forward and mines a block, so its head shows the new time. */
export async function advanceClock(side: ChainSide, seconds: number): Promise<bigint> {
  await side.testClient.increaseTime({ seconds });
  await side.testClient.mine({ blocks: 1 });
  return (await side.publicClient.getBlock({ blockTag: "latest" })).timestamp;
}
