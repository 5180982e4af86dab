import { createEventConformance, type RecordedEvent } from "@platform/http/eventConformance";
import { Finality } from "@platform/proto/common/v1/common";
import type { WatchDataResponse } from "@platform/proto/data/v1/events";
import { type IntentRecord, IntentStatus, type WatchIntentsResponse } from "@platform/proto/intents/v1/intents";
import { describe, expect, it } from "vitest";
import { defaultGatewayDocument } from "../../openapi/document.js";
import { eventOf as dataEventOf } from "./dataEvents.js";
import { closedEvent, DATA_EVENTS, droppedEvent, INTENT_EVENTS } from "./eventSchemas.js";
import { eventOf as intentEventOf } from "./intentEvents.js";
import { replayCharge } from "./replayCharge.js";
import { frame, type SseEvent } from "./sseWriter.js";

/*
 * Issue 43: each event stream declares its events, per event name the schema of its data. Every
 * event the emitters send (their real code, on changes as the services send them) is framed as on
 * the wire, read back as an SSE parser does, and held against the document's declared schemas.
 */

const document = defaultGatewayDocument();
const check = createEventConformance(document);

/** What an SSE parser reads from the event's frame: its name, its id and its data's text. */
function onTheWire(event: SseEvent): RecordedEvent {
  const text = frame(event);
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(text)?.[1];
  return { event: field("event")!, data: field("data")!, ...(event.id === undefined ? {} : { id: field("id")! }) };
}

const REF = {
  chainId: "945",
  blockNumber: "4812331",
  blockHash: `0x${"5d".repeat(32)}`,
  parentHash: `0x${"4c".repeat(32)}`,
  blockTimestamp: "2026-11-27T06:00:12.000Z",
  finality: Finality.FINALITY_FINALIZED,
};

const dataChanges: WatchDataResponse[] = [
  { position: "1795758735926-0", change: { $case: "head", value: { readModel: "market", asOf: REF } } },
  { position: "1795758735926-1", change: { $case: "head", value: { readModel: "subnets", asOf: undefined } } },
  {
    position: "1795758735926-2",
    change: {
      $case: "pool",
      value: {
        ref: REF,
        netuid: 3,
        mechanism: 1,
        taoInRao: "1000000000000",
        alphaInNalpha: "2000000000000",
        alphaOutNalpha: "500000000000",
        alphaIssuanceNalpha: "2500000000000",
        protocolAlphaNalpha: undefined,
        priceTao: "0.5",
        movingPriceTao: "0.49",
        volumeTotalRao: "12000000000",
        balancerQuoteWeight: undefined,
        rootProp: undefined,
      } as never,
    },
  },
  {
    position: "1795758735926-3",
    change: {
      $case: "price",
      value: {
        ref: REF,
        asset: "TAO",
        vs: "usd",
        price: "412.5",
        answer: "41250000000",
        decimals: 8,
        roundId: "18446744073709551617",
        updatedAt: "2026-11-27T06:00:00.000Z",
        feedAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        provider: "chainlink",
      } as never,
    },
  },
  { position: "1795758735926-4", change: { $case: "live", value: true } },
  { position: "1795758700000-0", change: { $case: "gap", value: true } },
];

const RECORD: IntentRecord = {
  orderId: `0x${"9f".repeat(32)}`,
  status: IntentStatus.INTENT_STATUS_OPEN,
  isFinal: false,
  userAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
  originChainId: "31337",
  originTxHash: `0x${"5a".repeat(32)}`,
  destinationChainId: "31338",
  input: { token: "0x5FbDB2315678afecb367f032d93F642f64180aa3", amount: "100000000" },
  output: {
    token: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    amount: "99850000",
    recipient: "0x52908400098527886E0F7030069857D2E4169EE7",
  },
  fillDeadline: 1_763_770_000,
  refundableAt: "2025-11-22T00:07:40.000Z",
  filler: "",
  opened: { ...REF, chainId: "31337", txHash: `0x${"5a".repeat(32)}`, txIndex: 0, logIndex: 0 },
  updatedAt: "2026-11-27T06:00:12.000Z",
  asOf: [
    {
      chainId: "31337",
      blockNumber: "130",
      blockHash: `0x${"05".repeat(32)}`,
      timestamp: "2026-11-27T06:00:12.000Z",
      finality: Finality.FINALITY_LATEST,
    },
  ],
} as IntentRecord;

const intentChanges: WatchIntentsResponse[] = [
  { position: "1795758735926-0", statusChanged: true, change: { $case: "record", value: RECORD } },
  { position: "1795758735926-1", statusChanged: false, change: { $case: "record", value: RECORD } },
  { position: "1795758735926-2", statusChanged: false, change: { $case: "removed", value: RECORD.orderId } },
  { position: "1795758735926-3", statusChanged: false, change: { $case: "live", value: true } },
  { position: "1795758700000-0", statusChanged: false, change: { $case: "gap", value: true } },
] as WatchIntentsResponse[];

/** The `closed` events a resume's replay charge sends: a spent budget, a revoked key. */
async function replayClosings(): Promise<SseEvent[]> {
  const ends: SseEvent[] = [];
  for (const verdict of [{ kind: "limited", retryAfterMs: 1_500 }, { kind: "revoked" }] as const) {
    const observe = replayCharge({
      eventsPerUnit: 1,
      charge: async () => verdict as never,
      end: (last) => ends.push(last),
      onError: (error) => {
        throw error;
      },
    });
    observe({ id: "1-0", event: "head", data: {} });
  }
  await new Promise((resolve) => setImmediate(resolve));
  return ends;
}

describe("the event streams' events, held against the document's declared schemas", () => {
  it("declares every event name of each stream, with a named schema of its data", () => {
    const paths = (document as { paths: Record<string, { get: { responses: Record<string, unknown> } }> }).paths;
    const declared = (path: string) =>
      (
        paths[path]!.get.responses["200"] as {
          content: { "text/event-stream": { schema: { oneOf: Array<{ title: string; properties: unknown }> } } };
        }
      ).content["text/event-stream"].schema.oneOf.map((branch) => [branch.title, branch.properties]);
    expect(declared("/data/v1/events").map(([name]) => name)).toEqual(Object.keys(DATA_EVENTS));
    expect(declared("/intents/v1/events").map(([name]) => name)).toEqual(Object.keys(INTENT_EVENTS));
    expect(declared("/data/v1/events")[0]![1]).toMatchObject({
      data: { contentMediaType: "application/json", contentSchema: { $ref: "#/components/schemas/HeadEventData" } },
    });
  });

  it("holds every event the data stream's emitter sends", () => {
    const events = dataChanges.map((change) => dataEventOf(change)!);
    expect(events.map((event) => event.event)).toEqual(["head", "head", "pool", "price", "live", "gap"]);
    expect(events.flatMap((event) => check("/data/v1/events", onTheWire(event)))).toEqual([]);
  });

  it("holds every event the intents stream's emitter sends", () => {
    const events = intentChanges.map((change) => intentEventOf(change)!);
    expect(events.map((event) => event.event)).toEqual(["status", "update", "removed", "live", "gap"]);
    expect(events.flatMap((event) => check("/intents/v1/events", onTheWire(event)))).toEqual([]);
  });

  it("holds the closing events both streams send, from the code that sends them", async () => {
    const closings = [
      ...(await replayClosings()),
      closedEvent({ reason: "the access token expired" }),
      droppedEvent({ reason: "the client read too slowly" }),
    ];
    expect(closings.map((event) => event.event)).toEqual(["closed", "closed", "closed", "dropped"]);
    for (const path of ["/data/v1/events", "/intents/v1/events"])
      expect(closings.flatMap((event) => check(path, onTheWire(event)))).toEqual([]);
  });

  it("finds what the declared schemas refuse: an unknown event, a missing member, data that is not JSON", () => {
    const head = onTheWire(dataEventOf(dataChanges[0]!)!);
    expect(check("/data/v1/events", { ...head, event: "status" })).toEqual([
      "event status: not an event of get /data/v1/events",
    ]);
    expect(check("/data/v1/events", { ...head, data: JSON.stringify({ read_model: "market" }) })).toEqual([
      expect.stringContaining("must have required property 'as_of'"),
    ]);
    expect(check("/data/v1/events", { ...head, data: "market" })).toEqual([
      expect.stringContaining("data is not JSON"),
    ]);
    expect(check("/data/v1/events", { ...head, id: "last" })).toEqual([expect.stringContaining("/id must match")]);
  });
});
