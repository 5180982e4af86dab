import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Metadata,
  makeGenericClientConstructor,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type sendUnaryData,
  status,
} from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callUnary, createGrpcClient } from "./createClient.js";
import { parseTarget } from "./unary/parseTarget.js";
import { createUnaryChannel } from "./unaryChannel.js";

// TLS against a grpc-js server with a certificate made for this run (openssl, Debian's package):
// the channel trusts the authority it is given, and refuses a server it was not told to trust.
const dir = mkdtempSync(join(tmpdir(), "unary-tls-"));
let certificate: Buffer;
let server: Server;
let port: number;

const definition = {
  echo: {
    path: "/test.Echo/Echo",
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
    requestDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
    responseSerialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
    responseDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
  },
};

beforeAll(async () => {
  const key = join(dir, "key.pem");
  const cert = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: "ignore" },
  );
  certificate = readFileSync(cert);
  server = new Server();
  server.addService(definition, {
    echo: (call: ServerUnaryCall<{ text: string }, unknown>, callback: sendUnaryData<unknown>) =>
      callback(null, { text: call.request.text, secure: true }),
  });
  const credentials = ServerCredentials.createSsl(null, [{ private_key: readFileSync(key), cert_chain: certificate }]);
  port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.tryShutdown(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe.each([false, true])("unary channel over TLS (batchCalls %s)", (batchCalls) => {
  const call = async (tls: { ca?: Buffer } | undefined) => {
    const channel = createUnaryChannel(parseTarget(`127.0.0.1:${port}`)!, {
      maxAttempts: 1,
      batchCalls,
      connection: tls === undefined ? {} : { tls: { ...tls, ALPNProtocols: ["h2"] } },
    });
    try {
      return await channel.call(
        "/test.Echo/Echo",
        Buffer.from(JSON.stringify({ text: "over tls" })),
        new Metadata(),
        Date.now() + 5_000,
      );
    } finally {
      channel.close();
    }
  };

  it("calls a TLS server whose authority it trusts", async () => {
    const result = await call({ ca: certificate });
    expect(result.ok && JSON.parse(result.message.toString())).toEqual({ text: "over tls", secure: true });
  });

  it("refuses a server it was not told to trust, and cannot speak plain text to a TLS port", async () => {
    for (const tls of [{}, undefined]) {
      const result = await call(tls);
      expect(result.ok ? status.OK : result.status.code).toBe(status.UNAVAILABLE);
    }
  });
});

describe("createGrpcClient with the tls option", () => {
  it("reaches the TLS server through the lean channel and through grpc-js alike", async () => {
    const Client = makeGenericClientConstructor(definition, "Echo");
    const client = createGrpcClient(Client, {
      target: `127.0.0.1:${port}`,
      deadlineMs: 5_000,
      tls: { ca: certificate },
    });
    try {
      const echo = (client as unknown as { echo: Parameters<typeof callUnary<{ text: string }, unknown>>[1] }).echo;
      expect(await callUnary(client, echo, { text: "lean" }, new Metadata())).toEqual({ text: "lean", secure: true });
      // Any option besides a deadline takes grpc-js's own path, with the same credentials.
      expect(
        await callUnary(client, echo, { text: "grpc-js" }, new Metadata(), {
          deadline: Date.now() + 5_000,
          propagate_flags: 0xffff,
        }),
      ).toEqual({
        text: "grpc-js",
        secure: true,
      });
    } finally {
      client.close();
    }
  });
});
