import { defineRoute, listQuery, nameItem } from "@platform/http";
import type { ChainRef } from "@platform/proto/common/v1/common";
import { type DataEventsServiceClient, DataTopic, type WatchDataResponse } from "@platform/proto/data/v1/events";
import type { PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import type { PriceObserved } from "@platform/proto/events/v1/oracle_prices";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { DATA_EVENTS, type EmittedEvent, HeadEventDataSchema } from "./eventSchemas.js";
import { type EventStreams, lastEventId, serveEventStream, watchSource } from "./serveEventStream.js";
import { streamSuccess } from "./sseWriter.js";

const PATH = "/data/v1/events";
const TOPICS = {
  heads: DataTopic.DATA_TOPIC_HEADS,
  pools: DataTopic.DATA_TOPIC_POOLS,
  prices: DataTopic.DATA_TOPIC_PRICES,
};
const TOPIC_NAMES = Object.keys(TOPICS) as (keyof typeof TOPICS)[];
/** The read models whose heads the stream sends, as the document names them. */
const READ_MODELS = HeadEventDataSchema.shape.read_model.options;
/** The most change-log entries a resume replays: data-query's WATCH_MAX_REPLAY_ENTRIES, as it is deployed. */
const REPLAY_BOUND = 1_000;

const EXAMPLE_AS_OF = {
  chain_id: 945,
  block_number: 4_812_331,
  block_hash: "0x5d1e0c9f3b7a2e6d4c8b1a0f9e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d",
  timestamp: "2026-11-27T06:00:12.000Z",
};

/**
 * `GET /data/v1/events?topics=heads,pools,prices`: the data read models' changes as server-sent
 * events, from their change log through data-query's WatchData.
 */
export function dataEventsRoute(dataEvents: DataEventsServiceClient, streams: EventStreams) {
  return defineRoute({
    method: "get",
    path: PATH,
    operationId: "streamDataEvents",
    scope: "data:read",
    query: z.object({
      topics: listQuery(nameItem(TOPIC_NAMES), {
        max: TOPIC_NAMES.length,
        description: "Which changes to stream: heads, pools, prices; all three when absent",
      }).optional(),
    }),
    docs: {
      summary: "Stream of data changes (server-sent events)",
      description: `text/event-stream. Events, in commit order, each with an id (a resumable position): \`head\` (a read model's as_of moved: data {read_model: accounts|market|subnets, as_of}), \`pool\` (a subnet pool's new snapshot, fields as in subnet-pools/latest), \`price\` (a new coin price round); \`live\` (caught up), \`gap\` (data {oldest}: Last-Event-ID is older than the change log keeps, or more than ${REPLAY_BOUND.toLocaleString("en-US")} entries behind: the stream goes on from the newest ${REPLAY_BOUND.toLocaleString("en-US")}, from \`oldest\`; changes before it are missing, re-read the state with the GET routes), \`dropped\` and \`closed\` (the stream ends) as on GET /intents/v1/events. Send the last id back as Last-Event-ID to resume with no gap and no repeat. A comment line every 15 s keeps proxies open. Each key may hold ${streams.slots.cap} streams at once (429 RATE_LIMITED past that), and each gateway replica serves ${streams.replicaCap.toLocaleString("en-US")} streams of every key together (503 UNAVAILABLE with Retry-After past that: retry, another replica may take it), intents and data streams together; opening one spends the route's cost once, and a resume's replay (the events before \`live\`) one more unit for every ${streams.replayEventsPerUnit} events: a budget spent mid-replay ends the stream with \`closed\` (data {code: RATE_LIMITED, retryAfterSeconds}); resume from the last id after that.`,
      tags: ["Data: events"],
      success: streamSuccess(DATA_EVENTS, {
        event: "head",
        id: "1795758735926-0",
        data: { read_model: "market", as_of: EXAMPLE_AS_OF },
      }),
      errors: [{ status: 400, code: "INVALID_PARAMETER" }],
    },
    async handle({ query, context }) {
      const topics = (query.topics ?? TOPIC_NAMES).map((name: keyof typeof TOPICS) => TOPICS[name]);
      const after = lastEventId(context);
      const stream = await serveEventStream(
        streams,
        PATH,
        context,
        watchSource<WatchDataResponse>({
          after,
          open: (from) =>
            dataEvents.watchData({ topics, after: from ?? "" }, callMetadata(context, context.keyId), {
              deadline: Number.POSITIVE_INFINITY,
            }),
          eventOf,
        }),
      );
      return { status: 200, body: undefined, stream };
    },
  });
}

/** The event a change sends: typed by the schemas the document declares (eventSchemas.ts). */
export function eventOf(message: WatchDataResponse): EmittedEvent<typeof DATA_EVENTS> | undefined {
  const { change, position: id } = message;
  switch (change?.$case) {
    case "head": {
      const readModel = READ_MODELS.find((name) => name === change.value.readModel);
      // A read model the contract does not name (a newer data-query's) is not this stream's to send.
      if (readModel === undefined) return undefined;
      return { id, event: "head", data: { read_model: readModel, as_of: renderRef(change.value.asOf) } };
    }
    case "pool":
      return { id, event: "pool", data: renderPool(change.value) };
    case "price":
      return { id, event: "price", data: renderPrice(change.value) };
    case "live":
      return { id, event: "live", data: { position: id } };
    case "gap":
      return { event: "gap", data: { oldest: id } };
    default:
      return undefined;
  }
}

function renderRef(ref: ChainRef | undefined) {
  if (ref === undefined) return null;
  return {
    chain_id: Number(ref.chainId),
    block_number: Number(ref.blockNumber),
    block_hash: ref.blockHash,
    timestamp: ref.blockTimestamp,
  };
}

const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

function renderPool(pool: PoolSnapshot) {
  return {
    netuid: pool.netuid,
    tao_in_rao: pool.taoInRao,
    alpha_in_nalpha: pool.alphaInNalpha,
    alpha_out_nalpha: pool.alphaOutNalpha,
    alpha_issuance_nalpha: pool.alphaIssuanceNalpha,
    protocol_alpha_nalpha: orNull(pool.protocolAlphaNalpha),
    price_tao: pool.priceTao,
    moving_price_tao: orNull(pool.movingPriceTao),
    volume_total_rao: orNull(pool.volumeTotalRao),
    balancer_quote_weight: orNull(pool.balancerQuoteWeight),
    root_prop: orNull(pool.rootProp),
    as_of: renderRef(pool.ref),
  };
}

function renderPrice(price: PriceObserved) {
  return {
    symbol: price.asset,
    vs: price.vs,
    price: price.price,
    source: {
      provider: price.provider,
      feed_address: price.feedAddress,
      updated_at: price.updatedAt,
      round_id: price.roundId,
    },
    as_of: renderRef(price.ref),
  };
}
