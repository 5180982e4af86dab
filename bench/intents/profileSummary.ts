// Summarises V8 CPU profiles of the projector (BENCH_PROJECTOR_CPU_PROFILE=<dir>) for a terminal:
// where its samples went by area (kafkajs, protobuf, Redis client, the intents projection's own
// steps, JSON, GC…), by function (self time), and the inclusive time of the projection's steps.
// The summarising is bench/src/cpuProfile.ts; this file names the projector's areas and steps.
//
//   tsx bench/intents/profileSummary.ts <file.cpuprofile> [more files]
import { summariseProfilesFromArgs } from "../src/cpuProfile.js";

/** Areas by where the code lives; the first match wins. */
const AREAS: Array<[string, RegExp]> = [
  ["module loading (startup)", /internal\/modules|node:internal\/vm|tsx\//],
  ["kafkajs (fetch, decode)", /kafkajs/],
  ["protobuf encode/decode", /@bufbuild|protobufjs|libs\/proto\//],
  ["Redis client (ioredis)", /ioredis|redis-parser|denque|cluster-key-slot|standard-as-callback/],
  ["viem (EIP-55 checksums)", /viem|@noble|abitype/],
  ["pino logging, prom-client", /pino|prom-client|sonic-boom|thread-stream/],
  ["intents: projection.ts", /projector\/(src|dist)\/intents\/projection\./],
  ["intents: orderState.ts", /projector\/(src|dist)\/intents\/orderState\./],
  ["intents: deriveRecord.ts", /projector\/(src|dist)\/intents\/deriveRecord\./],
  ["intents: decodeBatch.ts", /projector\/(src|dist)\/intents\/decodeBatch\./],
  ["intents: indexes, writes", /projector\/(src|dist)\/intents\/(recordIndexes|groupedWrites)\./],
  ["intents: other", /projector\/(src|dist)\/intents\//],
  ["libs/bus (consumer, envelope)", /libs\/bus\//],
  ["libs/store (versionedCommit)", /libs\/store\//],
  ["other platform code", /services\/|libs\//],
  [
    "node net, streams, timers, buffer",
    /node:net|node:stream|internal\/streams|node:timers|internal\/timers|node:events|internal\/process|internal\/async_hooks|node:buffer|internal\/buffer|node:zlib|internal\/(util|url|errors)/,
  ],
];

/** Functions whose inclusive time (with everything they call) is shown, matched by name and file. */
const STEPS: Array<[string, string, RegExp]> = [
  [
    "kafkajs: fetch and decode (Fetch response parse)",
    "decode",
    /kafkajs\/src\/protocol\/requests\/fetch\/v\d+\/response/,
  ],
  ["kafkajs: record batch decode", "decode", /kafkajs\/src\/protocol\/recordBatch\/v\d+\/index/],
  ["bus: projection consumer (each batch, all inside)", "", /libs\/bus\/(src|dist)\/projectionConsumer/],
  ["bus: fromKafkaMessage", "fromKafkaMessage", /libs\/bus\/(src|dist)\/envelope/],
  ["intents: decodeBatch", "decodeBatch", /intents\/decodeBatch/],
  ["intents: parse (loaded state)", "parse", /intents\/projection/],
  ["intents: parseOrderState", "parseOrderState", /intents\/orderState/],
  ["intents: serializeOrderState", "serializeOrderState", /intents\/orderState/],
  ["intents: deriveOrderRecord", "deriveOrderRecord", /intents\/deriveRecord/],
  ["intents: sameAsStored", "sameAsStored", /intents\/deriveRecord/],
  ["intents: recordIndexes", "recordIndexes", /intents\/recordIndexes/],
  ["intents: indexChanges", "indexChanges", /intents\/recordIndexes/],
  ["intents: loadCommands", "loadCommands", /intents\/projection/],
  ["store: readVersioned", "readVersioned", /libs\/store/],
  ["store: versionedCommit", "versionedCommit", /libs\/store/],
  ["ioredis: sendCommand", "sendCommand", /ioredis\/built\/Redis/],
  ["ioredis: pipeline exec", "exec", /ioredis\/built\/Pipeline/],
  ["ioredis: reply parsing", "execute", /redis-parser/],
];

summariseProfilesFromArgs({ areas: AREAS, functions: 30, steps: STEPS });
