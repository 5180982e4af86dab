/**
 * The Redis Cluster hash tags of the read models. Cluster runs a MULTI/EXEC, a Lua script or any
 * multi-key command only when all its keys hash to one slot, and only the part of a key inside its
 * first `{…}` is hashed. So every key a projection's commit touches together carries its tag:
 *
 * - `{intents}`: the intents read model, its versions, offsets, marker and change log; and
 *   intents-gateway's notification keys, which its transaction read fetches in one pipeline with
 *   the read model's keys (a cluster pipeline must stay on one node).
 * - `{data}`: the accounts, market and subnets read models together, because each of their commits
 *   appends to the one data change log (`rm:{data}:changes`, what `GET /data/v1/events` streams);
 *   splitting them needs a change log per projection.
 *
 * The marker lives in the same slot as the data it vouches for: a failover or flush that loses the
 * read model loses the marker too, and the projection replays (a marker on another primary would
 * outlive the loss and hide it).
 */
export const INTENTS_TAG = "{intents}";
export const DATA_TAG = "{data}";
export const INTENTS_PREFIX = `rm:${INTENTS_TAG}:`;
export const DATA_PREFIX = `rm:${DATA_TAG}:`;
