// Summarises V8 CPU profiles (from BENCH_CPU_PROFILE) for a terminal: where the process spent its
// samples, by area (gRPC, protobuf, express, JSON, Redis client, the service's own code...) and by
// function (self time).
//
//   tsx bench/data/profileSummary.ts <file.cpuprofile> [more files]
import { summariseProfilesFromArgs } from "../src/cpuProfile.js";

/** Areas by where the code lives; the first match wins. */
const AREAS: Array<[string, RegExp]> = [
  ["module loading (startup)", /internal\/modules|node:internal\/vm|tsx\//],
  ["gRPC (grpc-js, http2)", /@grpc\/grpc-js|node:http2|internal\/http2/],
  ["protobuf encode/decode", /@bufbuild|protobufjs|libs\/proto\//],
  ["Redis client (ioredis)", /ioredis|redis-parser|denque/],
  ["express, router, http", /express|router|body-parser|finalhandler|send\/|node:_http|internal\/http|_http_/],
  ["zod validation", /zod/],
  ["jose (token verify)", /jose/],
  ["pino logging, prom-client", /pino|prom-client|sonic-boom/],
  ["gateway code", /services\/gateway\//],
  ["data-query code", /services\/data-query\//],
  ["platform libs", /libs\/(http|grpc|errors|runtime|service|store|log)\//],
  [
    "node net, streams, timers",
    /node:net|node:stream|internal\/streams|node:timers|internal\/timers|node:events|internal\/process|internal\/async_hooks|node:buffer|internal\/buffer/,
  ],
];

summariseProfilesFromArgs({ areas: AREAS, functions: 25 });
