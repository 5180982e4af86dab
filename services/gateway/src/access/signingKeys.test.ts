import { generateKeyPairSync } from "node:crypto";
import { status } from "@grpc/grpc-js";
import type { GetSigningKeysResponse } from "@platform/proto/auth/v1/auth";
import { describe, expect, it } from "vitest";
import { cachedSigningKeys } from "./signingKeys.js";

/** A stand-in for auth's GetSigningKeys (the gRPC adapter has its own tests): answers, or hangs like an auth that is away. */
function fakeAuth() {
  const { publicKey } = generateKeyPairSync("ed25519");
  const x = publicKey.export({ format: "jwk" }).x!;
  const state = { calls: 0, away: false, maxAgeSeconds: 1 };
  const response = (): GetSigningKeysResponse => ({
    keys: [{ kid: "k1", kty: "OKP", crv: "Ed25519", x, alg: "EdDSA", use: "sig" }],
    issuer: "platform-auth",
    audience: "platform-api",
    cacheMaxAgeSeconds: state.maxAgeSeconds,
    jwksJson: "",
  });
  const client = {
    getSigningKeys(
      _request: unknown,
      _metadata: unknown,
      _options: unknown,
      callback: (error: unknown, value?: GetSigningKeysResponse) => void,
    ) {
      state.calls += 1;
      // Away: the call fails only at its deadline, as a real channel to a dead peer does.
      if (state.away)
        setTimeout(
          () =>
            callback(
              Object.assign(new Error("14 UNAVAILABLE"), {
                code: status.UNAVAILABLE,
                details: "",
                metadata: { get: () => [] },
              }),
            ),
          2_000,
        );
      else callback(null, response());
      return {};
    },
  };
  return { client: client as never, state };
}

describe("the gateway's signing-key cache", () => {
  it("keeps verifying with the known keys when auth goes away, never waiting for it, and refreshes in the background", async () => {
    const auth = fakeAuth();
    const keys = cachedSigningKeys(auth.client, { retryMs: 200 });
    expect(await keys.keyFor("k1")).toBeDefined();
    expect(auth.state.calls).toBe(1);

    auth.state.away = true;
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past cache_max_age
    const started = Date.now();
    for (let request = 0; request < 50; request += 1) expect(await keys.keyFor("k1")).toBeDefined();
    expect(await keys.issuer()).toBe("platform-auth");
    // Answered from the cache at once, while one background refresh waits on auth.
    expect(Date.now() - started).toBeLessThan(100);
    expect(auth.state.calls).toBe(2);

    auth.state.away = false;
    await new Promise((resolve) => setTimeout(resolve, 2_300)); // the hanging refresh failed; the retry delay passed
    await keys.keyFor("k1");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(auth.state.calls).toBe(3);
  }, 10_000);
});
