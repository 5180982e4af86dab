import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { Writable } from "node:stream";
import { Metadata, status } from "@grpc/grpc-js";
import { createKafkaClient } from "@platform/bus";
import { loadConfig } from "@platform/config";
import {
  deployContract,
  erc1271WalletAbi,
  erc6492WalletFactoryAbi,
  erc6492WalletFactoryBytecode,
} from "@platform/devnet";
import { AppError } from "@platform/errors";
import { callUnary } from "@platform/grpc";
import { createLogger, type Logger } from "@platform/log";
import { SignatureKind, TcAcceptanceEvent, type TermsAccepted } from "@platform/proto/events/v1/tc_acceptances";
import type { AcceptResponse, IssueNonceResponse } from "@platform/proto/tc/v1/tc";
import { TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import {
  freePort,
  type RunningAnvil,
  type RunningKafka,
  type RunningRedis,
  startAnvil,
  startKafka,
  startRedis,
  tempDir,
  waitFor,
} from "@platform/testing";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  serializeErc6492Signature,
  toHex,
} from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tcConfigSchema } from "./config.js";
import { tcKeys } from "./keys.js";
import { type ServedTc, serveTc } from "./testSupport/serveTc.js";
import { type MessageFields, siweMessageFor } from "./testSupport/siweMessageFor.js";

/*
 * The tc service in process over real gRPC, a real Redis, one real Kafka broker and an anvil
 * chain: nonces, acceptance with every refusal, the gate, a version raise, the projection rebuilt
 * after Redis loses it, contract-wallet RPC outages, and Kafka going away.
 */

const LIVE_CHAIN = 31337;
/** Configured and allowed, but its RPC port has nobody listening: contract-wallet checks fail there. */
const DEAD_CHAIN = 31399;
/** The live anvil again, reached through a proxy the test can break (rpcProxy). */
const PROXIED_CHAIN = 31398;
/** Its rpcUrl has nobody listening, its preflightRpcUrl is the live anvil: user reads must take the latter. */
const USER_RPC_CHAIN = 31397;

const dir = tempDir("tc-service");
const chainsFile = join(dir.path, "chains.json");
// Every log line of every instance: at the end none may hold a message or a signature.
const logLines: string[] = [];
const log: Logger = createLogger({
  service: "tc-test",
  level: "debug",
  destination: new Writable({
    write(chunk, _encoding, callback) {
      logLines.push(String(chunk));
      callback();
    },
  }),
});
const submitted: string[] = [];

let redisServer: RunningRedis;
let kafka: RunningKafka;
let anvil: RunningAnvil;
let redis: Redis;
let kafkaStopped = false;
let proxy: Server;
/** How the proxy in front of anvil behaves: pass everything, refuse everything, fail only eth_call, or answer after PROXY_DELAY_MS. */
let proxyMode: "up" | "down" | "fail-eth_call" | "slow" = "up";
const PROXY_DELAY_MS = 1_500;

type Instance = ServedTc;
const instances: Instance[] = [];
let v3: Instance;

async function startInstance(
  env: Record<string, string> = {},
  options: { waitReady: boolean } = { waitReady: true },
): Promise<Instance> {
  const config = loadConfig(tcConfigSchema, {
    REDIS_URL: redisServer.url,
    KAFKA_BROKERS: kafka.brokers.join(","),
    KAFKA_REPLICATION_FACTOR: "1",
    TC_CURRENT_VERSION: "3",
    CHAINS_FILE: chainsFile,
    SIWE_DOMAIN: "127.0.0.1:8080",
    SIWE_URI: "http://127.0.0.1:8080",
    SIWE_CHAIN_IDS: `${LIVE_CHAIN},${DEAD_CHAIN},${PROXIED_CHAIN},${USER_RPC_CHAIN}`,
    NONCE_TTL_SECONDS: "60",
    ...env,
  });
  const started: Instance = await serveTc(config, log);
  instances.push(started);
  if (options.waitReady) {
    await waitFor(
      async () => (await Promise.all(started.components.dependencies.map((check) => check.probe()))).every(Boolean),
      {
        what: "tc ready",
        timeoutMs: 60_000,
        intervalMs: 100,
      },
    );
  }
  return started;
}

beforeAll(async () => {
  [redisServer, kafka, anvil] = await Promise.all([
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
    startAnvil({ chainId: LIVE_CHAIN, logFile: join(dir.path, "anvil.log") }),
  ]);
  proxy = await rpcProxy(anvil.rpcUrl);
  const chain = (name: string, chainId: number, rpcUrl: string) => ({
    name,
    chainId,
    rpcUrl,
    roles: ["origin"],
    blockTimeMs: 1_000,
    finality: { safeDepth: 0, finalizedDepth: 0 },
    rpc: { timeoutMs: 2_000, retryCount: 0, retryDelayMs: 0 },
  });
  writeFileSync(
    chainsFile,
    JSON.stringify({
      environment: "test",
      chains: [
        chain("live", LIVE_CHAIN, anvil.rpcUrl),
        chain("dead", DEAD_CHAIN, `http://127.0.0.1:${await freePort()}`),
        chain("proxied", PROXIED_CHAIN, `http://127.0.0.1:${(proxy.address() as { port: number }).port}`),
        {
          ...chain("user-rpc", USER_RPC_CHAIN, `http://127.0.0.1:${await freePort()}`),
          preflightRpcUrl: anvil.rpcUrl,
        },
      ],
    }),
  );
  redis = createRedis({ url: redisServer.url, connectionName: "tc-test" });
  v3 = await startInstance();
}, 120_000);

afterAll(async () => {
  for (const started of instances.splice(0).reverse()) await started.stop().catch(() => undefined);
  redis?.disconnect();
  proxy?.closeAllConnections();
  proxy?.close();
  await Promise.all([redisServer?.stop(), kafkaStopped ? undefined : kafka?.stop(), anvil?.stop()]);
  dir.remove();
}, 60_000);

const metadata = () => new Metadata();
const newAccount = () => privateKeyToAccount(generatePrivateKey());

/** A JSON-RPC proxy to anvil whose behaviour `proxyMode` switches, to make an RPC fail on purpose. */
async function rpcProxy(target: string): Promise<Server> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (proxyMode === "down" || (proxyMode === "fail-eth_call" && body.includes('"eth_call"'))) {
        response.writeHead(502).end("bad gateway");
        return;
      }
      const delay = proxyMode === "slow" ? PROXY_DELAY_MS : 0;
      new Promise((resolve) => setTimeout(resolve, delay))
        .then(() => fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body }))
        .then(async (answer) =>
          response.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text()),
        )
        .catch(() => response.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** A funded deployer on anvil, with a key made for this test. */
async function deployer() {
  const account = newAccount();
  const chain = defineChain({
    id: LIVE_CHAIN,
    name: "live",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
  const walletClient = createWalletClient({ chain, account, transport: http(anvil.rpcUrl) });
  await publicClient.request({
    method: "anvil_setBalance" as never,
    params: [account.address, toHex(10n ** 20n)] as never,
  });
  return { chain, publicClient, walletClient };
}

async function refusal(work: Promise<unknown>): Promise<{ grpcStatus: number; code: string }> {
  const error = await work.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(AppError);
  const { grpcStatus, code } = error as AppError;
  return { grpcStatus, code };
}
const refused = (code: string, grpcStatus: number = status.INVALID_ARGUMENT) => ({ code, grpcStatus });

function issueNonce(account: { address: string }, on: Instance = v3): Promise<IssueNonceResponse> {
  return callUnary(on.tc, on.tc.issueNonce, { walletAddress: account.address.toLowerCase() }, metadata());
}

/** The message a careful client builds from the nonce answer, with a 5-minute lifetime. */
function messageFor(offer: IssueNonceResponse, account: PrivateKeyAccount, overrides: MessageFields = {}): string {
  return siweMessageFor(offer, account.address, LIVE_CHAIN, overrides);
}

async function accept(
  message: string,
  signature: Hex,
  on: Instance = v3,
  deadlineMs = 15_000,
  apiKeyId?: string,
): Promise<AcceptResponse> {
  submitted.push(message, signature);
  const sent = metadata();
  if (apiKeyId !== undefined) sent.set("x-api-key-id", apiKeyId);
  return callUnary(on.tc, on.tc.accept, { message, signature }, sent, { deadline: Date.now() + deadlineMs });
}

/** Nonce, message, signature by the account itself, accept. */
async function acceptAs(
  account: PrivateKeyAccount,
  on: Instance = v3,
  overrides: MessageFields = {},
): Promise<AcceptResponse> {
  const message = messageFor(await issueNonce(account, on), account, overrides);
  return accept(message, await account.signMessage({ message }), on);
}

const statusOf = (address: string, on: Instance = v3) =>
  callUnary(on.tc, on.tc.getStatus, { walletAddress: address }, metadata());
const gateOf = (address: string, on: Instance = v3) =>
  callUnary(on.tc, on.tc.checkGate, { walletAddress: address }, metadata());

/** Every TermsAccepted on the topic so far. */
async function recordedAcceptances(): Promise<TermsAccepted[]> {
  const client = createKafkaClient({ brokers: kafka.brokers, clientId: "tc-test-reader", logger: log });
  const admin = client.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(TOPICS.tcAcceptances.name);
  await admin.disconnect();
  const expected = ends.reduce((sum, { high, low }) => sum + Number(BigInt(high) - BigInt(low)), 0);
  const consumer = client.consumer({ groupId: `tc-test-${Date.now()}` });
  const events: TermsAccepted[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [TOPICS.tcAcceptances.name], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const payload = TcAcceptanceEvent.decode(message.value!);
      if (payload.event?.$case === "termsAccepted") events.push(payload.event.value);
    },
  });
  await waitFor(async () => events.length >= expected, { what: "the acceptances topic read", timeoutMs: 20_000 });
  await consumer.disconnect();
  return events;
}

// Shared across the tests, which run in order: alice accepts in the rebuild test and later ones read her status.
const alice = newAccount();

describe("tc service: nonces and acceptance", () => {
  it("issues a nonce bound to the wallet with exactly the SIWE fields it will accept", async () => {
    const before = Date.now();
    const offer = await issueNonce(alice);
    expect(offer).toMatchObject({
      walletAddress: alice.address,
      domain: "127.0.0.1:8080",
      uri: "http://127.0.0.1:8080",
      version: "1",
      chainIds: [String(LIVE_CHAIN), String(DEAD_CHAIN), String(PROXIED_CHAIN), String(USER_RPC_CHAIN)],
      statement: "I accept the Terms and Conditions version 3.",
      resource: "coin-tc:v3",
      currentTcVersion: 3,
    });
    expect(offer.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(Date.parse(offer.issuedAt)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(offer.expiresAt) - Date.parse(offer.issuedAt)).toBe(60_000);
    expect(await redis.get(tcKeys.nonce(offer.nonce))).toBe(alice.address);
    expect(await redis.ttl(tcKeys.nonce(offer.nonce))).toBeGreaterThan(50);
    expect(await refusal(callUnary(v3.tc, v3.tc.issueNonce, { walletAddress: "0x1234" }, metadata()))).toEqual(
      refused("INVALID_ADDRESS"),
    );
  });

  it("records an acceptance: never accepted → nonce → signed message → accepted → gate open", async () => {
    const bob = newAccount();
    expect(await statusOf(bob.address)).toEqual({
      walletAddress: bob.address,
      currentTcVersion: 3,
      accepted: false,
      acceptedVersion: undefined,
      acceptedAt: undefined,
    });
    expect(await gateOf(bob.address)).toEqual({ allowed: false, acceptedVersion: undefined, currentTcVersion: 3 });

    const offer = await issueNonce(bob);
    const message = messageFor(offer, bob);
    const signature = await bob.signMessage({ message });
    const accepted = await accept(message, signature);
    expect(accepted).toMatchObject({ walletAddress: bob.address, acceptedVersion: 3 });

    // Read-your-writes: Accept answered after the projection applied its event.
    expect(await statusOf(bob.address.toLowerCase())).toEqual({
      walletAddress: bob.address,
      currentTcVersion: 3,
      accepted: true,
      acceptedVersion: 3,
      acceptedAt: accepted.acceptedAt,
    });
    expect(await gateOf(bob.address)).toEqual({ allowed: true, acceptedVersion: 3, currentTcVersion: 3 });
    expect(await redis.exists(tcKeys.nonce(offer.nonce))).toBe(0);

    // The audit record carries the message and signature exactly as submitted.
    const recorded = (await recordedAcceptances()).find((event) => event.walletAddress === bob.address);
    expect(recorded).toMatchObject({
      walletAddress: bob.address,
      tcVersion: 3,
      message,
      signature,
      signatureKind: SignatureKind.SIGNATURE_KIND_EOA,
      chainId: String(LIVE_CHAIN),
      nonce: offer.nonce,
      domain: "127.0.0.1:8080",
      uri: "http://127.0.0.1:8080",
      acceptedAt: accepted.acceptedAt,
    });
    expect(Date.parse(recorded!.expirationTime) - Date.parse(recorded!.issuedAt)).toBe(5 * 60_000);
  });
});

describe("tc service: message checks", () => {
  it("refuses each kind of bad message with its own code, without burning the nonce", async () => {
    const carol = newAccount();
    const offer = await issueNonce(carol);
    const now = Date.now();
    const minutes = (n: number) => new Date(now + n * 60_000);
    const cases: [string, MessageFields | ((message: string) => string), { code: string; grpcStatus: number }][] = [
      ["another domain", { domain: "evil.example.com" }, refused("SIWE_DOMAIN_MISMATCH")],
      ["a scheme", { scheme: "https" }, refused("SIWE_DOMAIN_MISMATCH")],
      ["another uri", { uri: "http://127.0.0.1:8080/other" }, refused("SIWE_URI_MISMATCH")],
      ["another chain", { chainId: 1 }, refused("SIWE_CHAIN_UNSUPPORTED")],
      ["an expired message", { issuedAt: minutes(-6), expirationTime: minutes(-1) }, refused("SIWE_EXPIRED")],
      ["an old issuedAt", { issuedAt: minutes(-5.5), expirationTime: minutes(4) }, refused("SIWE_EXPIRED")],
      ["a future issuedAt", { issuedAt: minutes(6), expirationTime: minutes(10) }, refused("SIWE_NOT_YET_VALID")],
      ["a future notBefore", { notBefore: minutes(2) }, refused("SIWE_NOT_YET_VALID")],
      ["no expiration time", { expirationTime: undefined }, refused("SIWE_MALFORMED")],
      [
        "a lifetime over 10 minutes",
        { issuedAt: minutes(-1), expirationTime: minutes(9.5) },
        refused("SIWE_MALFORMED"),
      ],
      ["another statement", { statement: "I agree." }, refused("SIWE_MALFORMED")],
      [
        "a lowercase address",
        (message) => message.replace(carol.address, carol.address.toLowerCase()),
        refused("SIWE_MALFORMED"),
      ],
      ["a trailing newline", (message) => `${message}\n`, refused("SIWE_MALFORMED")],
      [
        "two resources",
        { resources: [offer.resource, "https://example.com/tc"] },
        refused("TC_VERSION_MISMATCH", status.ABORTED),
      ],
      [
        "the same resource twice",
        { resources: [offer.resource, offer.resource] },
        refused("TC_VERSION_MISMATCH", status.ABORTED),
      ],
      ["an old version's resource", { resources: ["coin-tc:v2"] }, refused("TC_VERSION_MISMATCH", status.ABORTED)],
      ["no resource", { resources: undefined }, refused("TC_VERSION_MISMATCH", status.ABORTED)],
    ];
    for (const [what, change, expected] of cases) {
      const message =
        typeof change === "function" ? change(messageFor(offer, carol)) : messageFor(offer, carol, change);
      expect({ what, ...(await refusal(accept(message, await carol.signMessage({ message })))) }).toEqual({
        what,
        ...expected,
      });
    }
    expect(await refusal(accept(messageFor(offer, carol), "0xnothex" as Hex))).toEqual(
      refused("SIWE_SIGNATURE_INVALID"),
    );

    // None of those touched the nonce: checks that need no state come first.
    const accepted = await acceptAs(carol, v3, {});
    expect(accepted.acceptedVersion).toBe(3);
    const again = messageFor(offer, carol);
    expect((await accept(again, await carol.signMessage({ message: again }))).walletAddress).toBe(carol.address);
  });
});

describe("tc service: single-use nonces", () => {
  it("uses a nonce once, for its own wallet only, and burns it even when the signature fails", async () => {
    const dave = newAccount();
    const erin = newAccount();

    // Replayed: the same message and signature a second time.
    const message = messageFor(await issueNonce(dave), dave);
    const signature = await dave.signMessage({ message });
    await accept(message, signature);
    expect(await refusal(accept(message, signature))).toEqual(refused("NONCE_INVALID_OR_USED"));

    // Issued to another wallet.
    const erinsOffer = await issueNonce(erin);
    const stolen = messageFor(erinsOffer, dave);
    expect(await refusal(accept(stolen, await dave.signMessage({ message: stolen })))).toEqual(
      refused("NONCE_INVALID_OR_USED"),
    );

    // Unknown.
    const made = messageFor({ ...erinsOffer, nonce: "0123456789abcdef0123456789abcdef" }, erin);
    expect(await refusal(accept(made, await erin.signMessage({ message: made })))).toEqual(
      refused("NONCE_INVALID_OR_USED"),
    );

    // Signed by another key: refused, and the nonce is gone with it.
    const offer = await issueNonce(erin);
    const forged = messageFor(offer, erin);
    expect(await refusal(accept(forged, await dave.signMessage({ message: forged })))).toEqual(
      refused("SIWE_SIGNATURE_INVALID"),
    );
    const genuine = messageFor(offer, erin);
    expect(await refusal(accept(genuine, await erin.signMessage({ message: genuine })))).toEqual(
      refused("NONCE_INVALID_OR_USED"),
    );
    expect((await statusOf(erin.address)).accepted).toBe(false);
  });

  it("expires nonces after NONCE_TTL_SECONDS", async () => {
    const frank = newAccount();
    const offer = await issueNonce(frank);
    await redis.pexpire(tcKeys.nonce(offer.nonce), 1);
    await waitFor(async () => (await redis.exists(tcKeys.nonce(offer.nonce))) === 0, {
      what: "the nonce expired",
      timeoutMs: 2_000,
      intervalMs: 10,
    });
    const message = messageFor(offer, frank);
    expect(await refusal(accept(message, await frank.signMessage({ message })))).toEqual(
      refused("NONCE_INVALID_OR_USED"),
    );
  });

  it("lets exactly one of 50 concurrent accepts with one nonce (from 50 API keys) succeed", async () => {
    const grace = newAccount();
    const message = messageFor(await issueNonce(grace), grace);
    const signature = await grace.signMessage({ message });
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        accept(message, signature, v3, 15_000, `key-${index}`).then(
          () => "accepted",
          (error: unknown) => (error instanceof AppError ? error.code : String(error)),
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === "accepted")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === "NONCE_INVALID_OR_USED")).toHaveLength(49);
    expect((await recordedAcceptances()).filter((event) => event.walletAddress === grace.address)).toHaveLength(1);
  });
});

describe("tc service: chain outages, projection rebuild and version raise", () => {
  it("accepts an EOA offline while a chain's RPC is away, and answers UNAVAILABLE where the chain must be asked", async () => {
    const heidi = newAccount();
    expect((await acceptAs(heidi, v3, { chainId: DEAD_CHAIN })).acceptedVersion).toBe(3);

    // Another key's signature: only the chain can say whether the address is a contract wallet.
    const offer = await issueNonce(heidi);
    const message = messageFor(offer, heidi, { chainId: DEAD_CHAIN });
    expect(await refusal(accept(message, await newAccount().signMessage({ message })))).toEqual(
      refused("UNAVAILABLE", status.UNAVAILABLE),
    );

    // On the live chain the same question has an answer: no code there, so the signature is invalid.
    const live = messageFor(await issueNonce(heidi), heidi);
    expect(await refusal(accept(live, await newAccount().signMessage({ message: live })))).toEqual(
      refused("SIWE_SIGNATURE_INVALID"),
    );
  });

  it("rebuilds status and gate from Kafka after Redis loses everything", async () => {
    const wallets = [alice, newAccount()];
    await acceptAs(alice);
    const before = await Promise.all(
      wallets.map(async (wallet) => [await statusOf(wallet.address), await gateOf(wallet.address)]),
    );
    await redis.flushall();
    // While the projection is gone, reads refuse to guess.
    const during = await refusal(statusOf(alice.address));
    expect(during).toEqual(refused("UNAVAILABLE", status.UNAVAILABLE));
    const after = await waitFor(
      async () => {
        try {
          return await Promise.all(
            wallets.map(async (wallet) => [await statusOf(wallet.address), await gateOf(wallet.address)]),
          );
        } catch {
          return undefined;
        }
      },
      { what: "the projection rebuilt after FLUSHALL", timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(after).toEqual(before);
    expect(before[0]![1]).toEqual({ allowed: true, acceptedVersion: 3, currentTcVersion: 3 });
    expect(await redis.get(tcKeys.marker)).toBe("complete");
  });

  it("outdates every acceptance when TC_CURRENT_VERSION is raised", async () => {
    const ivan = newAccount();
    const accepted = await acceptAs(ivan);
    const v4 = await startInstance({ TC_CURRENT_VERSION: "4" });

    expect(await statusOf(ivan.address, v4)).toEqual({
      walletAddress: ivan.address,
      currentTcVersion: 4,
      accepted: false,
      acceptedVersion: 3,
      acceptedAt: accepted.acceptedAt,
    });
    expect(await gateOf(ivan.address, v4)).toEqual({ allowed: false, acceptedVersion: 3, currentTcVersion: 4 });

    // A message for the old version is refused; one for the new version opens the gate again.
    const offer = await issueNonce(ivan, v4);
    expect(offer).toMatchObject({
      resource: "coin-tc:v4",
      currentTcVersion: 4,
      statement: "I accept the Terms and Conditions version 4.",
    });
    const stale = messageFor(offer, ivan, {
      resources: ["coin-tc:v3"],
      statement: "I accept the Terms and Conditions version 3.",
    });
    expect(await refusal(accept(stale, await ivan.signMessage({ message: stale }), v4))).toEqual(
      refused("TC_VERSION_MISMATCH", status.ABORTED),
    );
    expect((await acceptAs(ivan, v4)).acceptedVersion).toBe(4);
    expect(await gateOf(ivan.address, v4)).toEqual({ allowed: true, acceptedVersion: 4, currentTcVersion: 4 });
    await v4.stop();
  });
});

describe("tc service: contract wallets", () => {
  const owner = newAccount();
  let context: Awaited<ReturnType<typeof deployer>>;
  let factory: Address;
  let deployed: Address;

  beforeAll(async () => {
    context = await deployer();
    factory = await deployContract(context, { abi: erc6492WalletFactoryAbi, bytecode: erc6492WalletFactoryBytecode });
    deployed = await context.publicClient.readContract({
      address: factory,
      abi: erc6492WalletFactoryAbi,
      functionName: "getAddress",
      args: [owner.address, keccak256(toHex("deployed"))],
    });
    const hash = await context.walletClient.writeContract({
      address: factory,
      abi: erc6492WalletFactoryAbi,
      functionName: "deploy",
      args: [owner.address, keccak256(toHex("deployed"))],
    });
    await context.publicClient.waitForTransactionReceipt({ hash });
    expect(await context.publicClient.getCode({ address: deployed })).not.toBe(undefined);
    expect(
      await context.publicClient.readContract({ address: deployed, abi: erc1271WalletAbi, functionName: "owner" }),
    ).toBe(owner.address);
  });

  /** A message naming the wallet, signed by its owner (the wallet's ERC-1271 signature). */
  async function ownerSigned(wallet: Address, chainId: number, signer: PrivateKeyAccount = owner) {
    const offer = await issueNonce({ address: wallet });
    const message = siweMessageFor(offer, wallet, chainId);
    return { message, signature: await signer.signMessage({ message }) };
  }

  it("accepts a deployed ERC-1271 wallet's signature and refuses one its owner did not make", async () => {
    const { message, signature } = await ownerSigned(deployed, LIVE_CHAIN);
    expect(await accept(message, signature)).toMatchObject({ walletAddress: deployed, acceptedVersion: 3 });
    expect(await gateOf(deployed)).toEqual({ allowed: true, acceptedVersion: 3, currentTcVersion: 3 });
    const recorded = (await recordedAcceptances()).find((event) => event.walletAddress === deployed);
    expect(recorded?.signatureKind).toBe(SignatureKind.SIGNATURE_KIND_ERC1271);

    const forged = await ownerSigned(deployed, LIVE_CHAIN, newAccount());
    expect(await refusal(accept(forged.message, forged.signature))).toEqual(refused("SIWE_SIGNATURE_INVALID"));
  });

  it("accepts a counterfactual ERC-6492 signature of a wallet not deployed yet, without deploying it", async () => {
    const salt = keccak256(toHex("counterfactual"));
    const wallet = await context.publicClient.readContract({
      address: factory,
      abi: erc6492WalletFactoryAbi,
      functionName: "getAddress",
      args: [owner.address, salt],
    });
    expect(await context.publicClient.getCode({ address: wallet })).toBeUndefined();
    const { message, signature: ownerSignature } = await ownerSigned(wallet, LIVE_CHAIN);
    const signature = serializeErc6492Signature({
      address: factory,
      data: encodeFunctionData({ abi: erc6492WalletFactoryAbi, functionName: "deploy", args: [owner.address, salt] }),
      signature: ownerSignature,
    });
    expect(await accept(message, signature)).toMatchObject({ walletAddress: wallet, acceptedVersion: 3 });
    expect((await statusOf(wallet)).accepted).toBe(true);
    expect(await context.publicClient.getCode({ address: wallet })).toBeUndefined();
    const recorded = (await recordedAcceptances()).find((event) => event.walletAddress === wallet);
    expect(recorded).toMatchObject({ signatureKind: SignatureKind.SIGNATURE_KIND_ERC6492, signature });

    // The wrapper does not make another key's signature valid.
    const forged = await ownerSigned(wallet, LIVE_CHAIN, newAccount());
    const wrappedForgery = serializeErc6492Signature({
      address: factory,
      data: encodeFunctionData({ abi: erc6492WalletFactoryAbi, functionName: "deploy", args: [owner.address, salt] }),
      signature: forged.signature,
    });
    expect(await refusal(accept(forged.message, wrappedForgery))).toEqual(refused("SIWE_SIGNATURE_INVALID"));
  });

  it("answers UNAVAILABLE, not SIWE_SIGNATURE_INVALID, when the RPC fails while checking a contract wallet", async () => {
    try {
      // The RPC refuses everything: whether the address holds code is unknown.
      proxyMode = "down";
      const first = await ownerSigned(deployed, PROXIED_CHAIN);
      expect(await refusal(accept(first.message, first.signature))).toEqual(refused("UNAVAILABLE", status.UNAVAILABLE));

      // The code is found, but the ERC-1271 call fails: viem alone would call that "invalid".
      proxyMode = "fail-eth_call";
      const second = await ownerSigned(deployed, PROXIED_CHAIN);
      expect(await refusal(accept(second.message, second.signature))).toEqual(
        refused("UNAVAILABLE", status.UNAVAILABLE),
      );
    } finally {
      proxyMode = "up";
    }
    // Back up: the next attempt (with a new nonce) goes through.
    const third = await ownerSigned(deployed, PROXIED_CHAIN);
    expect((await accept(third.message, third.signature)).walletAddress).toBe(deployed);
  });

  describe("limits on the checks", () => limitTests(() => deployed, ownerSigned));
});

/** The "limits" tests of "contract wallets": a deployed ERC-1271 wallet, and its owner's signed acceptance on a chain. */
function limitTests(
  wallet: () => Address,
  signedOn: (wallet: Address, chainId: number) => Promise<{ message: string; signature: Hex }>,
) {
  const acceptFor = (on: Instance, apiKeyId: string, signed: { message: string; signature: Hex }) =>
    accept(signed.message, signed.signature, on, 20_000, apiKeyId);

  it("checks a contract wallet through the chain's preflightRpcUrl, not the rpcUrl ingestion uses", async () => {
    // USER_RPC_CHAIN's rpcUrl has nobody listening: the check can only pass through preflightRpcUrl.
    const signed = await signedOn(wallet(), USER_RPC_CHAIN);
    expect((await acceptFor(v3, "key-user-rpc", signed)).walletAddress).toBe(wallet());
  });

  it("lets one API key run ACCEPTS_MAX_CONCURRENT_PER_KEY acceptances at once (429 beyond, nonce kept); other keys go on", async () => {
    const limited = await startInstance({ ACCEPTS_MAX_CONCURRENT_PER_KEY: "1" });
    const [first, second, other] = await Promise.all([
      signedOn(wallet(), PROXIED_CHAIN),
      signedOn(wallet(), PROXIED_CHAIN),
      signedOn(wallet(), PROXIED_CHAIN),
    ]);
    proxyMode = "slow";
    let settled: PromiseSettledResult<AcceptResponse>[];
    try {
      const running = acceptFor(limited, "key-a", first);
      // The first is at the (slow) chain when the second of the same key arrives.
      await new Promise((resolve) => setTimeout(resolve, 300));
      settled = await Promise.allSettled([
        running,
        acceptFor(limited, "key-a", second),
        acceptFor(limited, "key-b", other),
      ]);
    } finally {
      proxyMode = "up";
    }
    expect(settled.map((entry) => entry.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({
      code: "RATE_LIMITED",
      grpcStatus: status.RESOURCE_EXHAUSTED,
    });
    // Refused before its nonce was used: the same signed message goes through now.
    expect((await acceptFor(limited, "key-a", second)).walletAddress).toBe(wallet());
  });

  it("sends at most CHAIN_READS_MAX_IN_FLIGHT checks' requests to a chain, queues CHAIN_READS_MAX_QUEUED, and answers UNAVAILABLE beyond", async () => {
    const bounded = await startInstance({ CHAIN_READS_MAX_IN_FLIGHT: "1", CHAIN_READS_MAX_QUEUED: "1" });
    const signed = await Promise.all([1, 2, 3].map(() => signedOn(wallet(), PROXIED_CHAIN)));
    proxyMode = "slow";
    let settled: PromiseSettledResult<AcceptResponse>[];
    try {
      settled = await Promise.allSettled(signed.map((entry, index) => acceptFor(bounded, `key-${index}`, entry)));
    } finally {
      proxyMode = "up";
    }
    const refusals = settled.filter((entry): entry is PromiseRejectedResult => entry.status === "rejected");
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    for (const refusal of refusals)
      expect(refusal.reason).toMatchObject({ code: "UNAVAILABLE", grpcStatus: status.UNAVAILABLE });
    // One is refused for the full queue. Another may time out at the slow chain on a loaded
    // machine (also UNAVAILABLE, also correct), so the queue's refusal need not be the first.
    expect(
      refusals.map((refusal) => String(refusal.reason.message)),
      "a refusal for the full queue",
    ).toContainEqual(expect.stringMatching(/too many contract-wallet signatures/));
    expect(settled.some((entry) => entry.status === "fulfilled")).toBe(true);
  });
}

describe("tc service: Kafka and Redis away, and the logs", () => {
  it("starts without Kafka and Redis, reports not ready, and answers UNAVAILABLE", async () => {
    const away = await startInstance(
      { KAFKA_BROKERS: `127.0.0.1:${await freePort()}`, REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
      { waitReady: false },
    );
    for (const check of away.components.dependencies)
      expect({ [check.name]: await check.probe() }).toEqual({ [check.name]: false });
    expect((await refusal(issueNonce(alice, away))).grpcStatus).toBe(status.UNAVAILABLE);
    expect((await refusal(statusOf(alice.address, away))).grpcStatus).toBe(status.UNAVAILABLE);
    await away.stop();
  });

  it("restarted while Kafka is away, still answers status and gate from the complete projection", async () => {
    const away = await startInstance({ KAFKA_BROKERS: `127.0.0.1:${await freePort()}` }, { waitReady: false });
    // Not ready (Kafka is away), so wait for its own Redis connection before reading: under load the
    // first call could otherwise arrive before the connection is up and rightly answer UNAVAILABLE.
    const redisCheck = away.components.dependencies.find((check) => check.name === "redis")!;
    await waitFor(() => redisCheck.probe(), { what: "tc connected to Redis", timeoutMs: 10_000 });
    expect(await statusOf(alice.address, away)).toEqual(await statusOf(alice.address));
    expect(await gateOf(alice.address, away)).toEqual({ allowed: true, acceptedVersion: 3, currentTcVersion: 3 });
    const readiness = Object.fromEntries(
      await Promise.all(away.components.dependencies.map(async (check) => [check.name, await check.probe()])),
    );
    expect(readiness).toEqual({ redis: true, kafka: false, projection: false });
    const message = messageFor(await issueNonce(alice, away), alice);
    expect(await refusal(accept(message, await alice.signMessage({ message }), away, 3_000))).toEqual(
      refused("UNAVAILABLE", status.UNAVAILABLE),
    );
    await away.stop();
  });

  it("answers UNAVAILABLE within the deadline, never hangs, when Kafka is away", async () => {
    const judy = newAccount();
    const message = messageFor(await issueNonce(judy), judy);
    const signature = await judy.signMessage({ message });
    await kafka.stop();
    kafkaStopped = true;
    const started = Date.now();
    expect(await refusal(accept(message, signature, v3, 4_000))).toEqual(refused("UNAVAILABLE", status.UNAVAILABLE));
    expect(Date.now() - started).toBeLessThan(4_500);
    const kafkaCheck = v3.components.dependencies.find((check) => check.name === "kafka")!;
    await waitFor(async () => !(await kafkaCheck.probe()), { what: "kafka reported down", timeoutMs: 10_000 });
  });

  it("never logs a message or a signature", () => {
    const logged = logLines.join("");
    expect(logged).toContain("terms accepted");
    for (const secret of new Set(submitted)) expect(logged.includes(secret)).toBe(false);
  });
});
