import { createClient, type IntentsStreamEvent } from "@chain-intents/client";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { type OpenedStream, openEventStream, type ReadEvent } from "./eventStream.js";
import { fillAsFiller, fundUser, type OpenedOrder, openOrder, orderOfQuote, settleAsOracle } from "./intentsActors.js";
import { type IntentsStack, type Json, newApiKey } from "./intentsStack.js";

/*
 * GET /intents/v1/events on a whole stack: an intent's life as status events, resuming after a
 * disconnect, the per-key stream cap and revocation. Registered by intentsLifecycle.test.ts on its
 * stack (the stream needs the same chains, services and actors).
 */

/** The gateway's default cap of streams per key (EVENT_STREAMS_PER_KEY). */
const STREAMS_PER_KEY = 5;

const statusEvents = (stream: OpenedStream) => stream.events.filter((event) => event.event === "status");
/** Every change of a record: status and update events. */
const changeEvents = (stream: OpenedStream) =>
  stream.events.filter((event) => event.event === "status" || event.event === "update");
const statusOf = (event: ReadEvent) => (event.data as Json).status as string;
const isStatus = (status: string) => (event: ReadEvent) => event.event === "status" && statusOf(event) === status;

export function intentEventsSuite(stack: () => IntentsStack) {
  const s = () => stack();
  const url = (query: string) => `${s().stack.descriptor.gatewayUrl}/intents/v1/events?${query}`;

  async function fundedUser(): Promise<PrivateKeyAccount> {
    const user = privateKeyToAccount(generatePrivateKey());
    await fundUser(s(), user, { usdc: 1_000_000_000n });
    return user;
  }

  async function openFor(user: PrivateKeyAccount): Promise<OpenedOrder> {
    const quoted = await s().api.post("/intents/v1/quotes", {
      originChainId: 31337,
      destinationChainId: 31338,
      inputToken: s().origin.usdc,
      outputToken: s().destination.usdc,
      amount: "100000000",
      userAddress: user.address,
    });
    expect(quoted.status).toBe(200);
    return openOrder(s().origin, user, orderOfQuote(await s().api.json(quoted)));
  }

  describe("GET /intents/v1/events", () => {
    it("an intent opened, filled and settled arrives as status events in order, and a resumed stream has no gap and no repeat", async () => {
      const key = await newApiKey(s().stack, "e2e-events-life");
      const user = await fundedUser();
      // One stream stays open throughout (the control); the other is cut after OPEN and resumed.
      const control = await openEventStream(url(`userAddress=${user.address}`), key.token);
      const cut = await openEventStream(url(`userAddress=${user.address}`), key.token);
      expect([control.status, cut.status]).toEqual([200, 200]);
      await control.next((event) => event.event === "live");
      await cut.next((event) => event.event === "live");

      const opened = await openFor(user);
      const openEvent = await cut.next(isStatus("OPEN"));
      cut.close();
      await fillAsFiller(s(), opened);
      await control.next(isStatus("FILLED"), 20_000);
      await settleAsOracle(s(), opened.orderId);
      await control.next(isStatus("SETTLED"), 20_000);

      const resumed = await openEventStream(url(`userAddress=${user.address}`), key.token, openEvent.id);
      expect(resumed.status).toBe(200);
      await resumed.next(isStatus("SETTLED"), 20_000);
      await resumed.next((event) => event.event === "live");

      const controlled = changeEvents(control);
      expect(controlled.every((event) => (event.data as Json).orderId === opened.orderId)).toBe(true);
      // Three status events, in the order the chain went through them; other changes of the record
      // (its steps becoming final) come between them as update events.
      expect(statusEvents(control).map(statusOf)).toEqual(["OPEN", "FILLED", "SETTLED"]);
      // Cut, then resumed from its last id: exactly the control's events up to the settlement (later
      // ones, e.g. finality, may still be arriving), none twice, none missing.
      const upToSettled = (events: ReadEvent[]) => events.slice(0, events.findIndex(isStatus("SETTLED")) + 1);
      const cutIds = changeEvents(cut).map((event) => event.id);
      const joined = [
        ...cutIds.slice(0, cutIds.indexOf(openEvent.id) + 1),
        ...upToSettled(changeEvents(resumed)).map((event) => event.id),
      ];
      expect(joined).toEqual(upToSettled(controlled).map((event) => event.id));
      expect(statusEvents(resumed).at(-1)!.data).toMatchObject({ status: "SETTLED", isFinal: true });
      control.close();
      resumed.close();
    }, 90_000);

    it("refuses the stream past the key's cap with 429, and takes one again once a stream closes", async () => {
      const key = await newApiKey(s().stack, "e2e-events-cap");
      const query = `userAddress=${privateKeyToAccount(generatePrivateKey()).address}`;
      const streams: OpenedStream[] = [];
      for (let i = 0; i < STREAMS_PER_KEY; i += 1) streams.push(await openEventStream(url(query), key.token));
      expect(streams.map((stream) => stream.status)).toEqual(Array(STREAMS_PER_KEY).fill(200));
      const refused = await openEventStream(url(query), key.token);
      expect(refused.status).toBe(429);
      expect(refused.problem).toMatchObject({ code: "RATE_LIMITED", status: 429 });
      streams.shift()!.close();
      // The slot comes back when the gateway sees the client leave.
      let again: OpenedStream | undefined;
      for (const deadline = Date.now() + 5_000; Date.now() < deadline; ) {
        again = await openEventStream(url(query), key.token);
        if (again.status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(again?.status).toBe(200);
      for (const stream of [...streams, again!]) stream.close();
    }, 60_000);

    it("closes a revoked key's stream within 5 s, with a final event", async () => {
      const key = await newApiKey(s().stack, "e2e-events-revoked");
      const stream = await openEventStream(
        url(`userAddress=${privateKeyToAccount(generatePrivateKey()).address}`),
        key.token,
      );
      await stream.next((event) => event.event === "live");
      const revokedAt = Date.now();
      await key.revoke();
      const closed = await stream.next((event) => event.event === "closed", 8_000);
      await stream.ended;
      expect(Date.now() - revokedAt).toBeLessThan(5_000);
      expect(closed.data).toMatchObject({ reason: "the API key was revoked" });
    }, 30_000);

    it("reads an intent's status events through the typed client", async () => {
      const key = await newApiKey(s().stack, "e2e-events-client");
      const client = createClient({ baseUrl: s().stack.descriptor.gatewayUrl, apiKey: key });
      const user = await fundedUser();
      const seen: IntentsStreamEvent[] = [];
      let opened: OpenedOrder | undefined;
      for await (const event of client.events.intents({ userAddress: user.address })) {
        if (event.type === "live" && opened === undefined) opened = await openFor(user);
        if (event.type !== "status") continue;
        seen.push(event);
        if (statusOf({ event: "status", data: event.data }) === "OPEN") await fillAsFiller(s(), opened!);
        if (statusOf({ event: "status", data: event.data }) === "FILLED") break;
      }
      expect(seen.map((event) => (event.data as Json).status)).toEqual(["OPEN", "FILLED"]);
      expect(seen.every((event) => (event.data as Json).orderId === opened!.orderId)).toBe(true);
    }, 60_000);

    it("answers a bad filter or position with a 400 problem before streaming", async () => {
      const key = await newApiKey(s().stack, "e2e-events-bad");
      const both = await openEventStream(url(`userAddress=${key.id}&orderId=0x${"11".repeat(32)}`), key.token);
      expect(both.status).toBe(400);
      const neither = await openEventStream(url(""), key.token);
      expect(neither).toMatchObject({ status: 400, problem: { code: "INVALID_PARAMETER" } });
      const badPosition = await openEventStream(url(`orderId=0x${"11".repeat(32)}`), key.token, "yesterday");
      expect(badPosition).toMatchObject({ status: 400, problem: { code: "INVALID_PARAMETER" } });
    }, 30_000);
  });
}
