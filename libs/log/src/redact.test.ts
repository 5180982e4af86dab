import { describe, expect, it } from "vitest";
import { CENSOR, redactLine, SENSITIVE_KEYS, scrubText, serializeError } from "./redact.js";

describe("redactLine", () => {
  it("returns a line without secrets as it is, without copying it", () => {
    const line = { requestId: "r-1", route: "/data/v1/coin/price/latest", status: 200, nested: { a: [1, { b: 2 }] } };
    expect(redactLine(line)).toBe(line);
  });

  it("censors every sensitive key at depths 1 to 4, whatever its case, and leaves the caller's object alone", () => {
    const line = {
      Authorization: "Bearer top",
      body: { password: "pw", list: [{ refresh_token: "rt" }, { ok: 1 }] },
      req: { headers: { authorization: "Bearer abc", host: "x" } },
      deep: { one: { two: { privateKey: "0xkey" } } },
      keep: { same: { value: 1 } },
    };
    const out = redactLine(line) as typeof line;
    expect(out).toEqual({
      Authorization: CENSOR,
      body: { password: CENSOR, list: [{ refresh_token: CENSOR }, { ok: 1 }] },
      req: { headers: { authorization: CENSOR, host: "x" } },
      deep: { one: { two: { privateKey: CENSOR } } },
      keep: { same: { value: 1 } },
    });
    // Copied along the changed paths only.
    expect(out.keep).toBe(line.keep);
    expect(out.body.list[1]).toBe(line.body.list[1]);
    expect(line.body.password).toBe("pw");
    expect(line.req.headers.authorization).toBe("Bearer abc");
  });

  it("knows every listed key, in any case", () => {
    for (const key of SENSITIVE_KEYS) {
      expect(redactLine({ [key]: "v" })).toEqual({ [key]: CENSOR });
      expect(redactLine({ x: { [key.toUpperCase()]: "v" } })).toEqual({ x: { [key.toUpperCase()]: CENSOR } });
    }
  });

  it("prints an error holding a secret as its serializer would, the secret censored and its message scrubbed", () => {
    const error = Object.assign(new Error("failed with Bearer abc.def"), { token: "t-1", code: "E1" });
    const out = redactLine({ err: error }) as unknown as { err: Record<string, unknown> };
    expect(out.err).toMatchObject({
      type: "Error",
      token: CENSOR,
      code: "E1",
      message: "failed with Bearer [redacted]",
    });
    expect(error.token).toBe("t-1");
  });

  it("scrubs the password of a URL in an error's message", () => {
    const error = new Error("cannot reach redis://gateway:hunter2-pw@127.0.0.1:6379 or nats://nats.internal:4222");
    expect(serializeError(error).message).toBe(
      "cannot reach redis://gateway:[redacted]@127.0.0.1:6379 or nats://nats.internal:4222",
    );
    expect(scrubText("redis://admin:pw@h:1 rediss://:only-password@h:2")).toBe(
      "redis://admin:[redacted]@h:1 rediss://:[redacted]@h:2",
    );
  });

  it("stops at depth 4 and survives cycles", () => {
    const cyclic: Record<string, unknown> = { name: "a" };
    cyclic.self = cyclic;
    expect(redactLine(cyclic)).toBe(cyclic);
    expect(redactLine({ a: { b: { c: { d: { token: "deep" } } } } })).toEqual({
      a: { b: { c: { d: { token: "deep" } } } },
    });
  });
});
