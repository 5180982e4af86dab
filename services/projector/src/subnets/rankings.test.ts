import type { AccountId } from "@platform/proto/common/v1/network";
import type { HolderPosition, HolderPositions } from "@platform/proto/events/v1/chain_network";
import { sortHolderPositions } from "@platform/proto/holderSets";
import { subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { describe, expect, it } from "vitest";
import { coldkeysWithChangedPositions, queueRankings } from "./rankings.js";

const account = (index: number): AccountId => ({
  ss58: `ss58-${index}`,
  publicKey: `0x${index.toString(16).padStart(64, "0")}`,
});
const position = (coldkey: number, hotkey: number, alpha: string): HolderPosition => ({
  coldkey: account(coldkey),
  hotkey: account(hotkey),
  alphaNalpha: alpha,
});
const setOf = (positions: HolderPosition[]): HolderPositions =>
  ({ netuid: 3, positions: sortHolderPositions(positions) }) as HolderPositions;

/** The four ranking keys of a subnet as plain data, with the commands queueRankings sends applied. */
function rankingStore() {
  const zsets = new Map<string, Set<string>>();
  const hashes = new Map<string, Map<string, string>>();
  const zset = (key: string) => zsets.get(key) ?? zsets.set(key, new Set()).get(key)!;
  const hash = (key: string) => hashes.get(key) ?? hashes.set(key, new Map()).get(key)!;
  let commands = 0;
  const multi = {
    del: (...keys: string[]) => {
      commands++;
      for (const key of keys) zsets.delete(key) || hashes.delete(key);
    },
    zrem: (key: string, ...members: string[]) => {
      commands++;
      for (const member of members) zset(key).delete(member);
    },
    zadd: (key: string, ...scoreMembers: string[]) => {
      commands++;
      for (let at = 1; at < scoreMembers.length; at += 2) zset(key).add(scoreMembers[at]!);
    },
    hdel: (key: string, ...fields: string[]) => {
      commands++;
      for (const field of fields) hash(key).delete(field);
    },
    hset: (key: string, fields: Record<string, string>) => {
      commands++;
      for (const [field, value] of Object.entries(fields)) hash(key).set(field, value);
    },
  };
  return {
    multi: multi as unknown as ReturnType<Redis["multi"]>,
    commands: () => commands,
    snapshot: () =>
      [
        subnetsKeys.holderColdkeys(3),
        subnetsKeys.holderColdkeyRows(3),
        subnetsKeys.holderPositions(3),
        subnetsKeys.holderPositionRows(3),
      ].map((key) => (zsets.has(key) ? [...zsets.get(key)!].sort() : [...(hashes.get(key) ?? new Map())].sort())),
  };
}

/** A deterministic generator (mulberry32), so that a failure replays. */
function random(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) % below;
  };
}

describe("holder rankings written as a diff", () => {
  it("leave Redis exactly as a ranking written whole would, over random moves of random sets", () => {
    for (let seed = 1; seed <= 25; seed++) {
      const next = random(seed);
      const positions = new Map<string, HolderPosition>();
      for (let count = 0; count < 20 + next(200); count++) {
        const coldkey = next(40);
        const hotkey = 1_000 + next(8);
        positions.set(`${coldkey}:${hotkey}`, position(coldkey, hotkey, String(next(5_000))));
      }
      let previous = setOf([...positions.values()]);
      const diffed = rankingStore();
      queueRankings(diffed.multi, 3, previous, undefined);
      for (let step = 0; step < 6; step++) {
        // Moves as a block brings them: some stakes and unstakes, a position emptied, a new holder,
        // and ties (equal alphas) on purpose.
        for (let move = 0; move < 1 + next(6); move++) {
          const coldkey = next(45);
          const hotkey = 1_000 + next(8);
          const kind = next(4);
          if (kind === 0) positions.delete(`${coldkey}:${hotkey}`);
          else positions.set(`${coldkey}:${hotkey}`, position(coldkey, hotkey, kind === 1 ? "0" : String(next(5_000))));
        }
        const current = setOf([...positions.values()]);
        queueRankings(diffed.multi, 3, current, previous);
        const whole = rankingStore();
        queueRankings(whole.multi, 3, current, undefined);
        expect(diffed.snapshot(), `seed ${seed}, step ${step}`).toEqual(whole.snapshot());
        previous = current;
      }
    }
  });

  it("writes nothing when no position moved, and only the moved coldkey's entries when one did", () => {
    const before = setOf([position(1, 1_000, "50"), position(2, 1_000, "40"), position(2, 1_001, "30")]);
    const store = rankingStore();
    queueRankings(store.multi, 3, before, undefined);
    const written = store.commands();
    queueRankings(store.multi, 3, setOf([...before.positions]), before);
    expect(store.commands()).toBe(written);

    const after = setOf([position(1, 1_000, "50"), position(2, 1_000, "45"), position(2, 1_001, "30")]);
    expect(coldkeysWithChangedPositions(before, after)).toEqual(new Set([account(2).publicKey]));
  });

  it("names a coldkey whose position left, and one whose new position came", () => {
    const before = setOf([position(1, 1_000, "50"), position(2, 1_000, "40")]);
    const after = setOf([position(2, 1_000, "40"), position(3, 1_000, "1")]);
    expect(coldkeysWithChangedPositions(before, after)).toEqual(new Set([account(1).publicKey, account(3).publicKey]));
  });
});
