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
 * and its `event-type` header is {@link eventTypeOf} of the payload.
 */
export interface TopicContract<T extends EventPayload> {
  /** Kafka topic name. */
  readonly name: string;
  /** Fully qualified protobuf name of the payload (the `schema` header). */
  readonly schema: string;
  readonly codec: PayloadCodec<T>;
  /** Log-compacted (latest value per key) rather than kept forever. */
  readonly compacted: boolean;
  /** What the record key is, as documented in ARCHITECTURE.md. */
  readonly key: string;
}

function topic<T extends EventPayload>(
  name: string,
  schema: string,
  codec: PayloadCodec<T>,
  key: string,
  compacted = false,
): TopicContract<T> {
  return { name, schema, codec, key, compacted };
}

export const TOPICS = {
  chainIntents: topic(
    "chain.intents.v1",
    "platform.events.v1.IntentsChainEvent",
    IntentsChainEvent,
    "orderId (ChainHeadAdvanced: head:<chainId>)",
  ),
  chainNetwork: topic(
    "chain.network.v1",
    "platform.events.v1.NetworkChainEvent",
    NetworkChainEvent,
    "account public key, netuid:<n>, or network",
  ),
  oraclePrices: topic("oracle.prices.v1", "platform.events.v1.PriceEvent", PriceEvent, "asset symbol"),
  intentsNotifications: topic(
    "intents.notifications.v1",
    "platform.events.v1.IntentNotificationEvent",
    IntentNotificationEvent,
    "<chainId>:<txHash>",
  ),
  tcAcceptances: topic(
    "tc.acceptances.v1",
    "platform.events.v1.TcAcceptanceEvent",
    TcAcceptanceEvent,
    "wallet address",
  ),
  authApiKeys: topic("auth.api-keys.v1", "platform.events.v1.ApiKeyEvent", ApiKeyEvent, "key id"),
  // RefreshTokenIssued only (an ApiKeyEvent): kept while a token can be live, not forever.
  authRefreshTokens: topic("auth.refresh-tokens.v1", "platform.events.v1.ApiKeyEvent", ApiKeyEvent, "key id"),
  ingestorCheckpoints: topic(
    "ingestor.checkpoints.v1",
    "platform.events.v1.CheckpointEvent",
    CheckpointEvent,
    "source id",
    true,
  ),
} as const;

export type TopicKey = keyof typeof TOPICS;

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
