import type { ClientUnderTest, Decoded, NormalizedAccount, NormalizedEvent } from "./clients/types.js";
import type { DecodedOutput } from "./compare.js";
import { fetchAccounts, fetchEvents, type RawData } from "./fetchRaw.js";
import { interleaved } from "./measure.js";
import { RawRpc } from "./rawRpc.js";
import { startRpcCounter } from "./rpcCounter.js";

/** The raw JSON-RPC subject of the end-to-end passes. */
export const BASELINE = "baseline";

export interface LiveOptions {
  clients: ClientUnderTest[];
  /** Clients run only in the (unmeasured) request count, events only. */
  profiledOnly: ClientUnderTest[];
  raw: RawData;
  wsUrl: string;
  /** Blocks outside the backlog each connection reads before a pass (head, primer). */
  readBlocks: string[];
  accounts: string[];
  rounds: number;
  log(message: string): void;
}

interface Connection {
  eventsAt(hash: string): Promise<Decoded<NormalizedEvent[]> | undefined>;
  accountsAt(hash: string): Promise<Decoded<NormalizedAccount[]> | undefined>;
  disconnect(): Promise<void>;
}
interface Subject {
  name: string;
  connect(url: string): Promise<Connection>;
}
export type Kind = "events" | "accounts";
export type RequestProfile = Record<Kind, Record<string, { perBlock: number; msPerBlock: number }>> & {
  msPerBlock: Partial<Record<Kind, number>>;
};

/**
 * Per round, per subject: a fresh connection made ready (connected, and the events of the head and
 * of the primer block read, so each client holds both runtimes' metadata: timed apart), then the whole backlog
 * block after block — one pass for events, another (fresh connection again, so no block is cached)
 * for the accounts. The last round's answers go to the correctness check. Afterwards one unmeasured
 * pass per subject through a counting relay records the JSON-RPC requests each makes per block.
 */
export async function measureLive(options: LiveOptions) {
  const { clients, profiledOnly, raw, wsUrl, readBlocks, accounts, rounds, log } = options;
  const baseline: Subject = {
    name: BASELINE,
    async connect(url) {
      const socket = await RawRpc.connect(url);
      return {
        eventsAt: async (hash) => void (await fetchEvents(socket, hash)),
        accountsAt: async (hash) => void (await fetchAccounts(socket, hash, raw.accountKeys)),
        disconnect: async () => socket.close(),
      };
    },
  };
  const asSubject = (client: ClientUnderTest): Subject => ({
    name: client.name,
    async connect(url) {
      const live = await client.connect(url);
      return {
        eventsAt: (hash) => live.eventsAt(hash),
        accountsAt: (hash) => live.accountsAt(hash, accounts),
        disconnect: () => live.disconnect(),
      };
    },
  });
  const subjects: Subject[] = [baseline, ...clients.map(asSubject)];
  /**
   * Blocks a subject failed on in the warm-up, with the error: not asked again (polkadot-api spends
   * ~20 s decoding the upgrade block's events with the wrong metadata before its decoder throws).
   * A variant (`polkadot-api (…)`) shares its client's.
   */
  const failures = new Map<string, Map<string, string>>();
  const failuresOf = (subject: Subject, kind: Kind) =>
    failures.get(`${subject.name}/${kind}`) ?? failures.get(`${subject.name.split(" ")[0]}/${kind}`);
  const runPass = async (subject: Subject, kind: Kind, url: string, onReady: () => void = () => undefined) => {
    const readyStarted = performance.now();
    const connection = await subject.connect(url);
    for (const hash of readBlocks) await connection.eventsAt(hash);
    const ready = performance.now() - readyStarted;
    onReady();
    const answers: [string, Decoded<NormalizedEvent[] | NormalizedAccount[]> | undefined][] = [];
    const errors = new Map<string, string>();
    const known = failuresOf(subject, kind);
    let okMs = 0;
    for (const block of raw.blocks) {
      const knownError = known?.get(block.hash);
      if (knownError !== undefined) {
        errors.set(block.hash, `${knownError} (in the warm-up; not asked again)`);
        continue;
      }
      const blockStarted = performance.now();
      try {
        answers.push([
          block.hash,
          kind === "events" ? await connection.eventsAt(block.hash) : await connection.accountsAt(block.hash),
        ]);
        okMs += performance.now() - blockStarted;
      } catch (error) {
        errors.set(block.hash, String(error).split("\n")[0] as string);
      }
    }
    await connection.disconnect();
    // A block the client failed on is left out of its time.
    return { ready, ms: okMs / Math.max(1, answers.length), answers, errors };
  };

  const readyMs = new Map<string, number[]>();
  const failed = new Map<string, number>();
  const outputs = new Map<string, DecodedOutput>();
  const pass = (kind: Kind) =>
    interleaved(subjects, rounds, async (subject, round) => {
      const { ready, ms, answers, errors } = await runPass(subject, kind, wsUrl);
      if (kind === "events" && round > 0) readyMs.set(subject.name, [...(readyMs.get(subject.name) ?? []), ready]);
      if (errors.size > 0 && round === 0) {
        failures.set(`${subject.name}/${kind}`, errors);
        log(`${subject.name} failed on ${errors.size} block(s) (${kind}): ${[...errors.values()][0]}`);
      }
      if (round === rounds) failed.set(`${subject.name}/${kind}`, errors.size);
      if (round === rounds && subject !== baseline) {
        const output = outputs.get(subject.name) ?? {
          source: `${subject.name} live`,
          events: new Map(),
          accounts: new Map(),
          errors: new Map(),
        };
        for (const [hash, answer] of answers) {
          if (kind === "events") output.events.set(hash, (answer as Decoded<NormalizedEvent[]>).normalize());
          else output.accounts.set(hash, (answer as Decoded<NormalizedAccount[]>).normalize());
        }
        for (const [hash, error] of errors) output.errors.set(hash, `${kind}: ${error}`);
        outputs.set(subject.name, output);
      }
      return ms;
    });
  const eventsMs = new Map([...(await pass("events")).entries()].map(([subject, values]) => [subject.name, values]));
  const accountsMs = new Map(
    [...(await pass("accounts")).entries()].map(([subject, values]) => [subject.name, values]),
  );

  const requests = new Map<string, RequestProfile>();
  const counter = await startRpcCounter(wsUrl);
  try {
    for (const subject of [...subjects, ...profiledOnly.map(asSubject)]) {
      const profile: RequestProfile = { events: {}, accounts: {}, msPerBlock: {} };
      for (const kind of profiledOnly.some((client) => client.name === subject.name)
        ? (["events"] as const)
        : (["events", "accounts"] as const)) {
        const { ms } = await runPass(subject, kind, counter.url, () => counter.take());
        profile.msPerBlock[kind] = ms;
        for (const [method, count] of counter.take())
          profile[kind][method] = {
            perBlock: count.calls / raw.blocks.length,
            msPerBlock: count.ms / raw.blocks.length,
          };
      }
      requests.set(subject.name, profile);
    }
  } finally {
    counter.close();
  }
  return { eventsMs, accountsMs, readyMs, failed, outputs: [...outputs.values()], requests };
}

export function requestSummary(requests: Map<string, RequestProfile>): string {
  const describe = (methods: Record<string, { perBlock: number; msPerBlock: number }>) =>
    Object.entries(methods)
      .sort((a, b) => b[1].perBlock - a[1].perBlock)
      .map(
        ([method, { perBlock, msPerBlock }]) =>
          `${perBlock.toFixed(2).replace(/\.?0+$/, "")} × ${method} (${(msPerBlock / perBlock).toFixed(1)} ms)`,
      )
      .join(", ");
  const pass = (profile: RequestProfile, kind: Kind) =>
    `${kind} (${profile.msPerBlock[kind]?.toFixed(1)} ms/block): ${describe(profile[kind])}`;
  return [...requests]
    .map(
      ([name, profile]) =>
        `- ${name}: ${pass(profile, "events")}${profile.msPerBlock.accounts === undefined ? "" : `; ${pass(profile, "accounts")}`}`,
    )
    .join("\n");
}
