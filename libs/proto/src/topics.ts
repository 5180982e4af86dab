import type { BinaryReader, BinaryWriter } from "@bufbuild/protobuf/wire";
import { DecodeError } from "@platform/errors/base";
import { ApiKeyEvent } from "./gen/events/v1/auth_api_keys.js";
import { IntentsChainEvent } from "./gen/events/v1/chain_intents.js";
import { NetworkChainEvent } from "./gen/events/v1/chain_network.js";
import { CheckpointEvent } from "./gen/events/v1/ingestor_checkpoints.js";
import { IntentNotificationEvent } from "./gen/events/v1/intents_notifications.js";
import { PriceEvent } from "./gen/events/v1/oracle_prices.js";
import { TcAcceptanceEvent } from "./gen/events/v1/tc_acceptances.js";

/** The encode/decode pair of a generated ts-proto message. */
export interface PayloadCodec<T> {
  encode(message: T, writer?: BinaryWriter): BinaryWriter;
  decode(input: BinaryReader | Uint8Array, length?: number): T;
}

/** A wrapper message: exactly one event in a oneof named `event`. */
export interface EventPayload {
  event?: { $case: string; value: unknown } | undefined;
}

/**
 * One Kafka topic of ARCHITECTURE.md and the single payload type its record values carry. A
 * consumer decodes every record of a topic with `codec`; the record's `schema` header is `schema`
 * and its `event-type` header is {@link eventTypeOf} of the payload. Its Kafka settings stand here
 * too, so each topic is listed once: @platform/bus turns them into the specs its migration applies.
 */
export interface TopicContract<T extends EventPayload, N extends string = string> {
  /** Kafka topic name. */
  readonly name: N;
  /** Fully qualified protobuf name of the payload (the `schema` header). */
  readonly schema: string;
  readonly codec: PayloadCodec<T>;
  /** Log-compacted (latest value per key) rather than kept for a time. */
  readonly compacted: boolean;
  /** What the record key is, as documented in ARCHITECTURE.md. */
  readonly key: string;
  /** Partitions it is created with unless the deployment says otherwise. */
  readonly partitions: number;
  /**
   * How long a topic that is not compacted keeps a record, in ms; -1 is for ever. For a chain
   * topic (`chainRetention`) this is the default, which the deployment may change.
   */
  readonly retentionMs: number;
  /**
   * A chain topic whose projections keep a durable copy in PostgreSQL: it keeps records for the
   * deployment's chain-topic retention (CHAIN_TOPICS_RETENTION_MS, @platform/bus topicSpecs'
   * `chainTopicsRetentionMs`), {@link DEFAULT_CHAIN_TOPICS_RETENTION_MS} by default, not for ever.
   * A rebuild reads the durable copy and replays only the topic's tail.
   */
  readonly chainRetention: boolean;
}

/**
 * Topics that are the only durable record of their facts keep every event, so their projections
 * can be rebuilt from offset zero.
 */
const FOREVER = -1;

/**
 * How long a chain topic (`chainRetention`) keeps its records unless the deployment says otherwise:
 * 7 days, long enough for a projection restored from PostgreSQL (or a PostgreSQL restored from a
 * backup of the last days) to find the offsets it stopped at, and not a year of blocks.
 */
export const DEFAULT_CHAIN_TOPICS_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * How long `auth.refresh-tokens.v1` keeps an issued refresh token: longer than any token lives
 * (auth refuses to start with a REFRESH_TOKEN_TTL_SECONDS above it), so a rebuild still finds
 * every live token, and no longer, so the events of a key that signs in often do not pile up.
 */
export const REFRESH_TOKEN_RETENTION_MS = 31 * 24 * 3_600_000;

interface TopicSettings {
  key: string;
  /** Room for consumer parallelism on the busy topics; one where a single reader reads it whole. */
  partitions: number;
  retentionMs?: number;
  compacted?: boolean;
  /** A chain topic with a durable copy of its projections: see {@link TopicContract.chainRetention}. */
  chainRetention?: boolean;
}

function topic<N extends string, T extends EventPayload>(
  name: N,
  schema: string,
  codec: PayloadCodec<T>,
  settings: TopicSettings,
): TopicContract<T, N> {
  const { key, partitions, compacted = false, chainRetention = false } = settings;
  const retentionMs = settings.retentionMs ?? (chainRetention ? DEFAULT_CHAIN_TOPICS_RETENTION_MS : FOREVER);
  return { name, schema, codec, key, compacted, partitions, retentionMs, chainRetention };
}

export const TOPICS = {
  // Kept for ever, for now: the intents projection (this and intents.notifications.v1) keeps its
  // orders in Redis alone, so these records are their only durable source until the orders move
  // to PostgreSQL (issue 41, point 1); then it becomes a chain topic with a bounded retention.
  chainIntents: topic("chain.intents.v1", "platform.events.v1.IntentsChainEvent", IntentsChainEvent, {
    key: "orderId (ChainHeadAdvanced: head:<chainId>)",
    partitions: 6,
  }),
  // Chain topics: what they carry can be read from the chain again, and their projections keep
  // their history in PostgreSQL (accounts; the market and subnets series are moving there), so
  // they keep a bounded tail.
  chainNetwork: topic("chain.network.v1", "platform.events.v1.NetworkChainEvent", NetworkChainEvent, {
    key: "account public key, netuid:<n>, or network",
    partitions: 6,
    chainRetention: true,
  }),
  oraclePrices: topic("oracle.prices.v1", "platform.events.v1.PriceEvent", PriceEvent, {
    key: "asset symbol",
    partitions: 3,
    chainRetention: true,
  }),
  // Read by the intents projection too (a wallet's notified transaction): kept for ever with chain.intents.v1.
  intentsNotifications: topic(
    "intents.notifications.v1",
    "platform.events.v1.IntentNotificationEvent",
    IntentNotificationEvent,
    { key: "<chainId>:<txHash>", partitions: 6 },
  ),
  // The only durable record of acceptances and of keys, small, and acceptances must stay
  // auditable: kept for ever.
  tcAcceptances: topic("tc.acceptances.v1", "platform.events.v1.TcAcceptanceEvent", TcAcceptanceEvent, {
    key: "wallet address",
    partitions: 3,
  }),
  authApiKeys: topic("auth.api-keys.v1", "platform.events.v1.ApiKeyEvent", ApiKeyEvent, {
    key: "key id",
    partitions: 3,
  }),
  // RefreshTokenIssued only (an ApiKeyEvent): kept while a token can be live, not forever.
  authRefreshTokens: topic("auth.refresh-tokens.v1", "platform.events.v1.ApiKeyEvent", ApiKeyEvent, {
    key: "key id",
    partitions: 3,
    retentionMs: REFRESH_TOKEN_RETENTION_MS,
  }),
  // The latest checkpoint per source id is all a restart reads.
  ingestorCheckpoints: topic("ingestor.checkpoints.v1", "platform.events.v1.CheckpointEvent", CheckpointEvent, {
    key: "source id",
    partitions: 1,
    compacted: true,
  }),
} as const;

export type TopicKey = keyof typeof TOPICS;

/** A topic's Kafka name, e.g. "chain.intents.v1". */
export type TopicName = (typeof TOPICS)[TopicKey]["name"];

/** The payload type of a topic, e.g. `PayloadOf<"chainIntents">` is `IntentsChainEvent`. */
export type PayloadOf<K extends TopicKey> = (typeof TOPICS)[K] extends TopicContract<infer T> ? T : never;

/**
 * The `event-type` header of a payload: its oneof case in PascalCase, which is the event's
 * message name ("orderOpened" -> "OrderOpened"). Throws on a payload without an event.
 */
export function eventTypeOf(payload: EventPayload): string {
  const kase = payload.event?.$case;
  if (kase === undefined) throw new DecodeError("payload carries no event");
  return kase.charAt(0).toUpperCase() + kase.slice(1);
}

/** Encodes a payload to the bytes of a record value. */
export function encodePayload<T extends EventPayload>(contract: TopicContract<T>, payload: T): Uint8Array {
  return contract.codec.encode(payload).finish();
}

/** Decodes a record value of the topic. */
export function decodePayload<T extends EventPayload>(contract: TopicContract<T>, bytes: Uint8Array): T {
  return contract.codec.decode(bytes);
}
