import { randomBytes } from "node:crypto";
import { join } from "node:path";
import {
  authCli,
  type PortPlan,
  type RunningStack,
  repoRoot,
  serviceCommand,
  serviceProcessSpecs,
  testRuntime,
} from "@platform/local-stack";
import { type ManagedProcess, spawnManaged, waitFor } from "@platform/testing";
import { createTestClient, createWalletClient, defineChain, type Hex, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * The T&C flow through the public gateway with a real local account: status → nonce → sign →
 * accept → status → the notification gate; then the current version is raised (tc restarted with
 * TC_CURRENT_VERSION 2, and left so). Registered by auth.test.ts on its stack (no simulator): a
 * stack of its own cost a whole start for two tests.
 */
export function termsAndConditionsSuite(get: () => { stack: RunningStack; ports: PortPlan; stateDir: string }) {
  let token: string;
  let restartedTc: ManagedProcess | undefined;
  const stackOf = () => get().stack;
  const base = () => get().stack.descriptor.gatewayUrl;
  const account = privateKeyToAccount(generatePrivateKey());

  const { post, status, notifyOnce, sendOwnTransaction } = walletCalls(
    base,
    () => token,
    account,
    () => stackOf().descriptor.chains.find((chain) => chain.chainId === 31337)!.rpcUrl,
  );

  beforeAll(async () => {
    const auth = stackOf().descriptor.processes.find((entry) => entry.name === "auth")!;
    const key = JSON.parse(
      await authCli(
        testRuntime(),
        [
          "keys",
          "create",
          "--name",
          "e2e-tc",
          "--scopes",
          "intents:read,intents:write",
          "--tier",
          "unlimited",
          "--json",
        ],
        { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! },
      ),
    ) as { id: string; secret: string };
    const issued = await fetch(`${base()}/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
    });
    token = ((await issued.json()) as { access_token: string }).access_token;
  }, 60_000);

  afterAll(async () => {
    await restartedTc?.stop();
  }, 60_000);

  describe("Terms & Conditions through the gateway", () => {
    it("takes a wallet from never accepted to accepted, and the gate lets it notify", async () => {
      expect(await status()).toMatchObject({
        walletAddress: account.address,
        currentTcVersion: 1,
        accepted: false,
        acceptedVersion: null,
        acceptedAt: null,
      });

      const refused = await notifyOnce();
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({
        status: 403,
        code: "TC_NOT_ACCEPTED",
        acceptedVersion: null,
        currentTcVersion: 1,
        type: expect.stringMatching(/\/problems\/tc-not-accepted$/),
      });

      const nonceResponse = await post("/intents/v1/tc/nonce", { walletAddress: account.address });
      expect(nonceResponse.status).toBe(200);
      const fields = (await nonceResponse.json()) as {
        nonce: string;
        domain: string;
        uri: string;
        chainIds: number[];
        statement: string;
        resource: string;
        currentTcVersion: number;
        issuedAt: string;
      };
      expect(fields.resource).toBe("coin-tc:v1");
      const issuedAt = new Date();
      const message = createSiweMessage({
        address: account.address,
        domain: fields.domain,
        uri: fields.uri,
        version: "1",
        chainId: fields.chainIds[0]!,
        nonce: fields.nonce,
        statement: fields.statement,
        issuedAt,
        expirationTime: new Date(issuedAt.getTime() + 5 * 60_000),
        resources: [fields.resource],
      });
      const signature = await account.signMessage({ message });
      const accepted = await post("/intents/v1/tc/accept", { message, signature });
      expect(accepted.status).toBe(200);
      expect(await accepted.json()).toMatchObject({ walletAddress: account.address, acceptedVersion: 1 });

      const replay = await post("/intents/v1/tc/accept", { message, signature });
      expect(replay.status).toBe(400);
      expect(await replay.json()).toMatchObject({ code: "NONCE_INVALID_OR_USED" });

      expect(await status()).toMatchObject({ accepted: true, acceptedVersion: 1, currentTcVersion: 1 });
      const notified = await post("/intents/v1/intents", {
        userAddress: account.address,
        originChainId: 31337,
        txHash: await sendOwnTransaction(),
      });
      expect(notified.status).toBe(202);
      expect(await notified.json()).toMatchObject({ originChainId: 31337, status: "SUBMITTED", created: true });
    }, 60_000);

    it("after the current version is raised, status says not accepted and the gate answers 403 with both versions", async () => {
      restartedTc = await restartTcAtVersion2(get());

      // The restarted tc answers once its channel from the gateway is back; then the new version shows.
      await waitFor(async () => (await status().catch(() => ({}) as Record<string, unknown>)).currentTcVersion === 2, {
        what: "status of version 2",
        timeoutMs: 30_000,
        intervalMs: 250,
      });
      expect(await status()).toMatchObject({ accepted: false, acceptedVersion: 1, currentTcVersion: 2 });
      // intents-gateway's own channel to the restarted tc may still be reconnecting (a brief 503
      // UNAVAILABLE that a client retries); the gate's answer is what this test is about.
      const refused = await waitFor(
        async () => {
          const response = await notifyOnce();
          return response.status === 503 ? undefined : response;
        },
        { what: "the gate's answer", timeoutMs: 30_000, intervalMs: 250 },
      );
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "TC_NOT_ACCEPTED", acceptedVersion: 1, currentTcVersion: 2 });
    }, 90_000);
  });
}

/** The wallet's calls through the gateway, with the suite's token. */
function walletCalls(
  base: () => string,
  tokenOf: () => string,
  account: ReturnType<typeof privateKeyToAccount>,
  originRpc: () => string,
) {
  const headers = () => ({ "content-type": "application/json", authorization: `Bearer ${tokenOf()}` });
  const post = (path: string, body: unknown) =>
    fetch(`${base()}${path}`, { method: "POST", headers: headers(), body: JSON.stringify(body) });
  const status = async () =>
    (
      await fetch(`${base()}/intents/v1/tc/status?walletAddress=${account.address.toLowerCase()}`, {
        headers: headers(),
      })
    ).json() as Promise<Record<string, unknown>>;
  const notifyOnce = () =>
    post("/intents/v1/intents", {
      userAddress: account.address,
      originChainId: 31337,
      txHash: `0x${randomBytes(32).toString("hex")}`,
    });
  /** A transaction the account really sent: the gateway refuses hashes the origin chain does not know, and claims by other wallets. */
  async function sendOwnTransaction(): Promise<Hex> {
    const rpcUrl = originRpc();
    const chain = defineChain({
      id: 31337,
      name: "origin",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    await createTestClient({ chain, transport: http(rpcUrl), mode: "anvil" }).setBalance({
      address: account.address,
      value: parseEther("1"),
    });
    return createWalletClient({ chain, transport: http(rpcUrl), account }).sendTransaction({
      to: account.address,
      value: 0n,
    });
  }
  return { post, status, notifyOnce, sendOwnTransaction };
}

/** Stops the stack's tc and starts it again with TC_CURRENT_VERSION 2; ready, and seen by the gateway. */
async function restartTcAtVersion2(where: {
  stack: RunningStack;
  ports: PortPlan;
  stateDir: string;
}): Promise<ManagedProcess> {
  await where.stack.processes.get("tc")!.stop();
  const infra = {
    ...where.stack.descriptor.infrastructure,
    chainsFile: join(where.stateDir, "chains.json"),
    secretsDir: join(where.stateDir, "secrets"),
  };
  const spec = serviceProcessSpecs(where.ports, infra, "info").find((candidate) => candidate.name === "tc")!;
  const { command, args } = serviceCommand(repoRoot, "tc", testRuntime());
  const restarted = spawnManaged({
    name: "tc",
    command,
    args,
    cwd: repoRoot,
    logFile: join(where.stateDir, "logs", "tc-v2.log"),
    env: { PATH: process.env.PATH, ...spec.env, TC_CURRENT_VERSION: "2" },
  });
  await waitFor(async () => (await fetch(spec.readyUrl).catch(() => undefined))?.status === 200, {
    what: "tc with version 2",
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  // The gateway reconnects to the restarted tc on its own; wait until its ops /readyz lists tc as answering.
  await waitFor(
    async () => {
      const response = await fetch(`http://127.0.0.1:${where.ports.gatewayOps}/readyz`).catch(() => undefined);
      const body = (await response?.json().catch(() => undefined)) as
        | { checks?: Record<string, { ok: boolean }> }
        | undefined;
      return response?.status === 200 && body?.checks?.["grpc:tc"]?.ok === true;
    },
    { what: "the gateway to see tc again", timeoutMs: 30_000, intervalMs: 250 },
  );
  return restarted;
}
