import type { VersionedOp } from "@platform/store";

/**
 * The writes of one read-model transaction, grouped so a batch of hundreds of orders needs one
 * ZREM and one ZADD per index key rather than several per order: fewer operations to encode
 * and for the commit script to run.
 *
 * Grouping keeps the outcome of writing one by one because every key is either set or deleted
 * once per transaction, and each sorted-set member belongs to exactly one record, whose removals
 * and additions never name the same (key, member) twice; removals still go before additions.
 */
export interface GroupedWrites {
  set(key: string, value: string | Buffer): void;
  del(key: string): void;
  zadd(key: string, score: number, member: string): void;
  zrem(key: string, member: string): void;
  /** The grouped operations: deletions, then sets, then removals, then additions. */
  ops(): VersionedOp[];
}

export function groupedWrites(): GroupedWrites {
  const sets = new Map<string, string | Buffer>();
  const dels = new Set<string>();
  const removals = new Map<string, string[]>();
  const additions = new Map<string, (string | number)[]>();
  const claim = (key: string) => {
    if (sets.has(key) || dels.has(key)) throw new Error(`key ${key} written twice in one transaction`);
  };
  return {
    set(key, value) {
      claim(key);
      sets.set(key, value);
    },
    del(key) {
      claim(key);
      dels.add(key);
    },
    zadd(key, score, member) {
      const entries = additions.get(key) ?? [];
      entries.push(score, member);
      additions.set(key, entries);
    },
    zrem(key, member) {
      const members = removals.get(key) ?? [];
      members.push(member);
      removals.set(key, members);
    },
    ops() {
      return [
        ...[...dels].map((key): VersionedOp => ({ op: "del", key })),
        ...[...sets].map(([key, value]): VersionedOp => ({ op: "set", key, value })),
        ...[...removals].map(([key, members]): VersionedOp => ({ op: "zrem", key, members })),
        ...[...additions].map(([key, entries]): VersionedOp => ({ op: "zadd", key, entries })),
      ];
    },
  };
}
