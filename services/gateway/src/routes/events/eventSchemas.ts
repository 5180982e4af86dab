import { component } from "@platform/http";
import { z } from "zod";
import {
  baseUnits,
  blockNumber,
  decimal,
  instant,
  integerText,
  netuid,
  nullableBaseUnits,
  nullableDecimal,
} from "../data/shared/wire.js";
import { IntentSchema } from "../intents/intentAnswers.js";

/**
 * The `data` of every event the two event streams send, by event name: each a named schema of the
 * OpenAPI document (`*EventData`), which documents each stream's events from these maps
 * (libs/http eventStreamSchema.ts), and the type the code that emits them is held to
 * (`EmittedEvent`), so the document cannot drift from what is sent.
 */

const position = (description: string) =>
  z
    .string()
    .regex(/^[0-9]{1,20}-[0-9]{1,20}$/)
    .meta({ description });

export const LiveEventDataSchema = component(
  "LiveEventData",
  z
    .object({ position: position("Where the stream stands: the event's id") })
    .meta({ description: "`live`: caught up; later changes follow as they are committed" }),
);

export const GapEventDataSchema = component(
  "GapEventData",
  z.object({ oldest: position("The position the stream goes on from; changes before it may be missing") }).meta({
    description:
      "`gap`: Last-Event-ID is older than the change log keeps, or too far behind: re-read the state with the GET routes",
  }),
);

export const DroppedEventDataSchema = component(
  "DroppedEventData",
  z
    .object({ reason: z.string().meta({ description: "Why, for people" }) })
    .meta({ description: "`dropped`, the stream's last event: the client read too slowly; resume with Last-Event-ID" }),
);

export const ClosedEventDataSchema = component(
  "ClosedEventData",
  z
    .object({
      reason: z.string().meta({ description: "Why, for people" }),
      code: z.string().optional().meta({
        description: "A problem code, where one applies: RATE_LIMITED (a replay spent the budget), INTERNAL…",
      }),
      retryAfterSeconds: z
        .number()
        .int()
        .positive()
        .optional()
        .meta({ description: "With RATE_LIMITED: seconds to wait before resuming" }),
    })
    .meta({
      description:
        "`closed`, the stream's last event: the key was revoked or rotated, the token expired, a replay spent the rate budget, the gateway is shutting down; reconnect with Last-Event-ID",
    }),
);

/** Events both streams send besides their changes. */
export const CONTROL_EVENTS = {
  live: LiveEventDataSchema,
  gap: GapEventDataSchema,
  dropped: DroppedEventDataSchema,
  closed: ClosedEventDataSchema,
};

export const EventAsOfSchema = component(
  "EventAsOf",
  z
    .object({
      chain_id: z.number().int().meta({ description: "The chain's id" }),
      block_number: blockNumber().meta({ description: "The block's number" }),
      block_hash: z.string().meta({ description: "The block's hash, 0x-prefixed" }),
      timestamp: instant(),
    })
    .meta({ description: "The block a data event reflects" }),
);

export const HeadEventDataSchema = component(
  "HeadEventData",
  z
    .object({
      read_model: z.enum(["accounts", "market", "subnets"]).meta({ description: "The read model whose head moved" }),
      as_of: EventAsOfSchema.nullable().meta({ description: "The read model's new head; null when unknown" }),
    })
    .meta({ description: "`head`: a read model's as_of moved (the newest block its projection has folded in)" }),
);

export const PoolEventDataSchema = component(
  "PoolEventData",
  z
    .object({
      netuid: netuid(),
      tao_in_rao: baseUnits("TAO in the pool, rao"),
      alpha_in_nalpha: baseUnits("Alpha in the pool, nalpha"),
      alpha_out_nalpha: baseUnits("Alpha outstanding (staked), nalpha"),
      alpha_issuance_nalpha: baseUnits("The subnet's alpha issuance, nalpha"),
      protocol_alpha_nalpha: nullableBaseUnits("The protocol's alpha, nalpha; null where the runtime keeps none"),
      price_tao: decimal("Alpha's price in TAO per alpha, a decimal string (9 decimal places, truncated)"),
      moving_price_tao: nullableDecimal(
        "The moving price (SubnetMovingPrice), TAO per alpha; null where the runtime keeps none (spec 218, this platform's chain, does not)",
      ),
      volume_total_rao: nullableBaseUnits(
        "TAO swapped through the pool, rao, both directions adding: the runtime's SubnetVolume where it keeps one; null otherwise (subnet-pools/latest gives the platform's sum)",
      ),
      balancer_quote_weight: nullableDecimal(
        "The balancer's quote weight, a ratio from 0 to 1; null where the runtime keeps none (spec 218 does not)",
      ),
      root_prop: nullableDecimal(
        "The root proportion, a ratio from 0 to 1; null where the pool snapshot carries none (spec 218's does not)",
      ),
      as_of: EventAsOfSchema.nullable().meta({ description: "The block of the snapshot; null when unknown" }),
    })
    .meta({ description: "`pool`: a subnet pool's new snapshot (fields as in subnet-pools/latest)" }),
);

export const PriceEventDataSchema = component(
  "PriceEventData",
  z
    .object({
      symbol: z.string().meta({ description: "The asset (TAO)" }),
      vs: z.string().meta({ description: "The currency it is priced in (usd)" }),
      price: decimal("The price of one TAO in the vs currency (USD), a decimal string"),
      source: z
        .object({
          provider: z.string().meta({ description: "The price feed's provider" }),
          feed_address: z.string().meta({ description: "The feed's contract address" }),
          updated_at: instant(),
          round_id: integerText("The feed's round id (uint80), an unsigned integer string"),
        })
        .meta({ description: "Where the price comes from" }),
      as_of: EventAsOfSchema.nullable().meta({ description: "The block the round was read at; null when unknown" }),
    })
    .meta({ description: "`price`: a new coin price round" }),
);

/** `GET /data/v1/events`: every event name and the schema of its data. */
export const DATA_EVENTS = {
  head: HeadEventDataSchema,
  pool: PoolEventDataSchema,
  price: PriceEventDataSchema,
  ...CONTROL_EVENTS,
};

export const RemovedEventDataSchema = component(
  "RemovedEventData",
  z
    .object({ key: z.string().meta({ description: "The removed record's key (its order id, or origin transaction)" }) })
    .meta({ description: "`removed`: a chain reorganisation removed the record" }),
);

/** `GET /intents/v1/events`: every event name and the schema of its data. */
export const INTENT_EVENTS = {
  status: IntentSchema,
  update: IntentSchema,
  removed: RemovedEventDataSchema,
  ...CONTROL_EVENTS,
};

/** An event a stream of these `events` sends: its name, its data of that name's schema, and its position. */
export type EmittedEvent<Events extends Record<string, z.ZodType>> = {
  [Name in keyof Events & string]: { id?: string; event: Name; data: z.output<Events[Name]> };
}[keyof Events & string];

/** The `closed` event, every stream's last but for `dropped`. */
export const closedEvent = (data: z.output<typeof ClosedEventDataSchema>): EmittedEvent<typeof CONTROL_EVENTS> => ({
  event: "closed",
  data,
});

/** The `dropped` event: the client read too slowly. */
export const droppedEvent = (data: z.output<typeof DroppedEventDataSchema>): EmittedEvent<typeof CONTROL_EVENTS> => ({
  event: "dropped",
  data,
});
