import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { connectSignals, natsAuthorization, subjects } from "@platform/signals";
import { type RunningNats, startNats, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Grant, unionGrant } from "./grant.js";
import { LOCAL_PRINCIPALS, PRINCIPALS } from "./principals.js";
import { natsUsersOf, principalsOn } from "./serverUsers.js";

/**
 * The grant model (principals.ts) rendered as NATS users on a real nats-server: each service's
 * user publishes and subscribes to its own subjects and is refused the others; each projection's
 * user (Kubernetes) publishes only its own change signal, the local stack's one `projector` every
 * projection's. Widening a grant, or switching the users off, fails a test here.
 */

const dir = tempDir("nats-permissions");
const password = () => randomBytes(16).toString("hex");
const adminPassword = password();
const principals: Record<string, Grant> = { ...PRINCIPALS, ...LOCAL_PRINCIPALS };
const NATS_USERS = principalsOn(principals, "nats");
type NatsUser = string;
const passwords = Object.fromEntries(NATS_USERS.map((name) => [name, password()])) as Record<NatsUser, string>;
let server: RunningNats;
let admin: NatsConnection;

interface UserConnection {
  nc: NatsConnection;
  /** Permission violations the server reported to this connection, as `<operation> <subject>`. */
  violations: string[];
}
const users = new Map<NatsUser, UserConnection>();

beforeAll(async () => {
  const configFile = join(dir.path, "nats.conf");
  writeFileSync(
    configFile,
    natsAuthorization(
      adminPassword,
      natsUsersOf(principals, (name) => passwords[name]!),
    ),
    { mode: 0o600 },
  );
  server = await startNats({ dir: join(dir.path, "js"), logFile: join(dir.path, "nats.log"), configFile });
  admin = await connect({ servers: server.url, user: "admin", pass: adminPassword });
  for (const name of NATS_USERS) {
    const nc = await connect({ servers: server.url, user: name, pass: passwords[name], name });
    const violations: string[] = [];
    void (async () => {
      for await (const status of nc.status()) {
        const error = status.type === "error" ? (status.error as { operation?: string; subject?: string }) : undefined;
        if (error?.operation !== undefined) violations.push(`${error.operation} ${error.subject}`);
      }
    })();
    users.set(name, { nc, violations });
  }
});

afterAll(async () => {
  for (const { nc } of users.values()) await nc.close().catch(() => undefined);
  await admin?.close().catch(() => undefined);
  await server?.stop();
  dir.remove();
});

/** A subject a subscription on `pattern` receives. */
const concrete = (pattern: string) => pattern.replace(/\*/g, "market").replace(/>$/, "x");

/** Whether `user` publishing on `subject` reaches a subscriber; the server's refusal is recorded. */
async function publishes(user: NatsUser, subject: string): Promise<boolean> {
  const { nc } = users.get(user)!;
  const received: string[] = [];
  const watcher = admin.subscribe(subject, {
    callback: (_error, message) => {
      received.push(message.subject);
    },
  });
  await admin.flush();
  nc.publish(subject, "{}");
  // The server answers a refused PUB before the flush's PONG, in order.
  await nc.flush();
  await admin.flush();
  await sleep(50);
  watcher.unsubscribe();
  return received.length > 0;
}

/** Whether `user` subscribed on `pattern` receives what is published there. */
async function receives(user: NatsUser, pattern: string): Promise<boolean> {
  const { nc } = users.get(user)!;
  const received: string[] = [];
  const subscription = nc.subscribe(pattern, {
    callback: (error, message) => {
      if (!error) received.push(message.subject);
    },
  });
  await nc.flush();
  admin.publish(concrete(pattern), "{}");
  await admin.flush();
  await nc.flush();
  await sleep(50);
  subscription.unsubscribe();
  return received.length > 0;
}

const refusedPublish = async (user: NatsUser, subject: string) => {
  expect(await publishes(user, subject)).toBe(false);
  await waitFor(async () => users.get(user)!.violations.includes(`publish ${subject}`), {
    what: `the server refusing ${user} publish ${subject}`,
    timeoutMs: 2_000,
    intervalMs: 20,
  });
};

const refusedSubscribe = async (user: NatsUser, pattern: string) => {
  expect(await receives(user, pattern)).toBe(false);
  await waitFor(async () => users.get(user)!.violations.includes(`subscription ${pattern}`), {
    what: `the server refusing ${user} a subscription to ${pattern}`,
    timeoutMs: 2_000,
    intervalMs: 20,
  });
};

describe("NATS users against a real nats-server", () => {
  it("refuses a connection without credentials, or with a wrong password", async () => {
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toThrow(/authorization/i);
    await expect(
      connect({ servers: server.url, user: "data-query", pass: "not-its-password", reconnect: false }),
    ).rejects.toThrow(/authorization/i);
  });

  it("lets each service publish and subscribe to its own subjects", async () => {
    for (const name of NATS_USERS) {
      const grant = principals[name]!.nats!;
      for (const subject of grant.publish)
        expect(await publishes(name, subject), `${name} publish ${subject}`).toBe(true);
      for (const pattern of grant.subscribe)
        expect(await receives(name, pattern), `${name} subscribe ${pattern}`).toBe(true);
      expect(users.get(name)!.violations).toEqual([]);
    }
  });

  it("refuses the signals a service does not send", async () => {
    await refusedPublish("data-query", subjects.readModelChanged("market"));
    await refusedPublish("data-query", subjects.intentsNotified);
    await refusedPublish("gateway", subjects.readModelChanged("intents"));
    await refusedPublish("intents-gateway", subjects.readModelChanged("intents"));
    await refusedPublish("chain-ingestor", subjects.intentsNotified);
    await refusedPublish("chain-ingestor", subjects.readModelChanged("intents"));
    await refusedPublish("projector", subjects.intentsNotified);
    await refusedPublish("projector", subjects.readModelChanged("other"));
  });

  it("lets each projection's user publish only its own change signal", async () => {
    const projections = ["intents", "accounts", "market", "subnets"];
    for (const projection of projections) {
      const user = `projector-${projection}`;
      expect(await publishes(user, subjects.readModelChanged(projection)), user).toBe(true);
      for (const other of projections.filter((name) => name !== projection))
        await refusedPublish(user, subjects.readModelChanged(other));
      await refusedSubscribe(user, subjects.readModelChanged(projection));
    }
    // The local stack's one projector: the union of the four, nothing more.
    const union = unionGrant(projections.map((projection) => principals[`projector-${projection}`]!));
    expect(principals.projector!.nats).toEqual(union.nats);
  });

  it("refuses the signals a service does not listen to", async () => {
    await refusedSubscribe("intents-gateway", subjects.readModelChanged("*"));
    await refusedSubscribe("intents-gateway", subjects.intentsNotified);
    await refusedSubscribe("chain-ingestor", subjects.readModelChanged("*"));
    await refusedSubscribe("projector", subjects.readModelChanged("*"));
    await refusedSubscribe("projector", subjects.intentsNotified);
    await refusedSubscribe("data-query", subjects.intentsNotified);
    await refusedSubscribe("gateway", subjects.intentsNotified);
  });

  it("refuses every service the whole subject space, requests and JetStream's API", async () => {
    for (const name of NATS_USERS) {
      await refusedSubscribe(name, ">");
      await refusedSubscribe(name, "_INBOX.>");
      await refusedPublish(name, "$JS.API.INFO");
    }
  });

  it("connects the services' signals with their users (connectSignals)", async () => {
    const signals = connectSignals({
      servers: [server.url],
      name: "projector",
      user: "projector",
      password: passwords.projector,
    });
    const anonymous = connectSignals({ servers: [server.url], name: "anonymous" });
    try {
      await waitFor(() => signals.ready(), { what: "the projector's signals", timeoutMs: 5_000 });
      expect(await anonymous.ready(500)).toBe(false);
    } finally {
      await signals.close();
      await anonymous.close();
    }
  });
});
