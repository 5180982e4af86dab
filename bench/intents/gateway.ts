import { authCli } from "@platform/local-stack";
import type { Hex, PrivateKeyAccount } from "viem";
import { createSiweMessage } from "viem/siwe";

/** The public gateway, as a client with an API key's bearer token sees it. */
export interface Gateway {
  base: string;
  headers: Record<string, string>;
}

/** An unlimited-tier key with intents:read and intents:write, exchanged for a bearer token. */
export async function connectGateway(base: string, authTarget: string, runtime: "dist" | "source"): Promise<Gateway> {
  const key = JSON.parse(
    await authCli(
      runtime,
      [
        "keys",
        "create",
        "--name",
        "bench-intents",
        "--scopes",
        "intents:read,intents:write",
        "--tier",
        "unlimited",
        "--json",
      ],
      { AUTH_ADMIN_GRPC_TARGET: authTarget },
    ),
  ) as { id: string; secret: string };
  const issued = await fetch(`${base}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  if (issued.status !== 200) throw new Error(`POST /auth answered ${issued.status}`);
  const token = ((await issued.json()) as { access_token: string }).access_token;
  return { base, headers: { "content-type": "application/json", authorization: `Bearer ${token}` } };
}

/** Accepts the current Terms & Conditions for a wallet (SIWE), which the notification endpoint requires. */
export async function acceptTerms(gateway: Gateway, account: PrivateKeyAccount): Promise<void> {
  const response = await fetch(`${gateway.base}/intents/v1/tc/nonce`, {
    method: "POST",
    headers: gateway.headers,
    body: JSON.stringify({ walletAddress: account.address }),
  });
  const fields = (await response.json()) as {
    nonce: string;
    domain: string;
    uri: string;
    chainIds: number[];
    statement: string;
    resource: string;
  };
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
    expirationTime: new Date(issuedAt.getTime() + 9 * 60_000),
    resources: [fields.resource],
  });
  const accepted = await fetch(`${gateway.base}/intents/v1/tc/accept`, {
    method: "POST",
    headers: gateway.headers,
    body: JSON.stringify({ message, signature: await account.signMessage({ message }) }),
  });
  if (accepted.status !== 200) throw new Error(`T&C acceptance answered ${accepted.status}: ${await accepted.text()}`);
}

/** The post-broadcast notification (the NATS hint to the ingestor rides on it). */
export async function notify(
  gateway: Gateway,
  input: { userAddress: string; originChainId: number; txHash: Hex; orderId: Hex },
): Promise<void> {
  const response = await fetch(`${gateway.base}/intents/v1/intents`, {
    method: "POST",
    headers: gateway.headers,
    body: JSON.stringify(input),
  });
  if (response.status !== 202 && response.status !== 200)
    throw new Error(`POST /intents/v1/intents answered ${response.status}: ${await response.text()}`);
  await response.body?.cancel();
}

/** The order's status through the public API, or undefined while it answers 404. */
export async function intentStatus(gateway: Gateway, orderId: Hex): Promise<string | undefined> {
  const response = await fetch(`${gateway.base}/intents/v1/intents/${orderId}`, { headers: gateway.headers });
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  if (response.status !== 200) throw new Error(`GET /intents/v1/intents/${orderId} answered ${response.status}`);
  return ((await response.json()) as { status: string }).status;
}
