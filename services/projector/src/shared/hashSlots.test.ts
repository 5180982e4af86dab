import {
  accountsKeys,
  dataChangeLog,
  idPrefixes,
  intentsChangeLog,
  intentsKeys,
  marketKeys,
  readModelVersionKeys,
  subnetsKeys,
} from "@platform/read-models";
import { redisKeySlot, sharedKeySlot } from "@platform/store";
import { describe, expect, it } from "vitest";
import { headKeys } from "../accounts/head.js";

/**
 * Redis Cluster runs a projection's commit (MULTI/EXEC, its scripts, versionedCommit) only when
 * every key it touches hashes to one slot. Rather than list each commit's keys, this takes every
 * key a layout can build (sample ids for each parameter) and asserts one slot per group of
 * layouts committed together: a new key family without the projection's hash tag fails here.
 */

type Layout = Readonly<Record<string, string | ((...args: never[]) => string)>>;

const SAMPLES: readonly (readonly string[])[] = [
  ["0", "1"],
  ["64", "chain.network.v1"],
  [`0x${"ab".repeat(32)}`, "31337"],
  ["TAO", "usd", "5m"],
];

/** Every key the layout builds from the samples: each function called with each sample row. */
function keysOf(layout: Layout): string[] {
  const keys: string[] = [];
  for (const entry of Object.values(layout)) {
    if (typeof entry === "string") {
      keys.push(entry);
      continue;
    }
    for (const row of SAMPLES) {
      const args = Array.from({ length: entry.length }, (_, index) => row[index % row.length]!);
      keys.push((entry as (...values: string[]) => string)(...args));
    }
  }
  return keys;
}

describe("every key a projection commits together shares one slot", () => {
  it("accounts, market and subnets, with the data change log and version keys (one tag: {data})", () => {
    const keys = [
      ...keysOf(accountsKeys),
      ...keysOf(marketKeys),
      ...keysOf(subnetsKeys),
      dataChangeLog.key,
      ...Object.values(readModelVersionKeys),
      ...headKeys([accountsKeys.blocks(0), accountsKeys.blocks(11)]),
    ];
    expect(sharedKeySlot(keys)).toBe(redisKeySlot("data"));
  });

  it("intents, with its versions, change log and the keys its reads build from id prefixes (one tag: {intents})", () => {
    const id = `0x${"cd".repeat(32)}`;
    const keys = [
      ...keysOf(intentsKeys),
      intentsChangeLog.key,
      ...[idPrefixes.order.events, idPrefixes.order.record].map((prefix) => prefix + id),
      ...[idPrefixes.tx.placeholder, idPrefixes.tx.state, idPrefixes.tx.orders].map((prefix) => `${prefix}31337:${id}`),
    ];
    expect(sharedKeySlot(keys)).toBe(redisKeySlot("intents"));
  });

  it("catches a key without the tag", () => {
    expect(() => sharedKeySlot([...keysOf(accountsKeys), "rm:accounts:head"])).toThrow(/different slots/);
  });
});
