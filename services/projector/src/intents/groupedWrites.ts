import type { Redis } from "@platform/store";

type Multi = ReturnType<Redis["multi"]>;

/**
 * The writes of one read-model transaction, grouped by command so a batch of hundreds of orders
 * goes out as a handful of commands (one DEL, one MSET, one ZREM and one ZADD per index key)
 * rather than several per order: fewer commands to queue, encode, and answer QUEUED to.
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
  /** Queues the grouped commands on `multi`, deletions and removals first. */
  queueOn(multi: Multi): void;
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
    queueOn(multi) {
      if (dels.size > 0) multi.del(...dels);
      if (sets.size > 0) multi.mset(new Map(sets));
      for (const [key, members] of removals) multi.zrem(key, ...members);
      for (const [key, entries] of additions) multi.zadd(key, ...entries);
    },
  };
}
