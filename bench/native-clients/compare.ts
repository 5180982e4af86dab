import type { NormalizedAccount, NormalizedEvent } from "./clients/types.js";
import type { RawBlock } from "./fetchRaw.js";

/** What one client decoded for every block, offline (its decoders on the fetched bytes) or live (its own API). */
export interface DecodedOutput {
  source: string;
  events: Map<string, NormalizedEvent[]>;
  accounts: Map<string, NormalizedAccount[]>;
  /** Blocks the client failed on (live: its query threw), with the error. */
  errors: Map<string, string>;
}

export interface Mismatch {
  block: number;
  source: string;
  what: "events" | "accounts" | "expectation";
  detail: string;
}

/**
 * Per block, the answer most sources give is the reference; every other answer is a mismatch,
 * described at its first difference. The reference itself must have as many events as the block's
 * System.Events length prefix, a SubtensorModule.NetworkMaxStakeSet (numbered differently by the two
 * runtimes) and `transfers` Balances.Transfer events (none in the upgrade block).
 */
export function compareOutputs(blocks: RawBlock[], outputs: DecodedOutput[], transfers: number): Mismatch[] {
  const mismatches: Mismatch[] = [];
  for (const block of blocks) {
    const events = reference(outputs, (output) => output.events.get(block.hash));
    const accounts = reference(outputs, (output) => output.accounts.get(block.hash));
    for (const output of outputs) {
      const mine = output.events.get(block.hash);
      const error = output.errors.get(block.hash);
      if (error !== undefined)
        mismatches.push({ block: block.number, source: output.source, what: "events", detail: `failed: ${error}` });
      else if (JSON.stringify(mine) !== events.key)
        mismatches.push({
          block: block.number,
          source: output.source,
          what: "events",
          detail: firstDifference(events.value ?? [], mine ?? []),
        });
      const myAccounts = output.accounts.get(block.hash);
      if (JSON.stringify(myAccounts) !== accounts.key && !output.errors.has(block.hash)) {
        const index = (myAccounts ?? []).findIndex(
          (account, i) => JSON.stringify(account) !== JSON.stringify(accounts.value?.[i]),
        );
        mismatches.push({
          block: block.number,
          source: output.source,
          what: "accounts",
          detail: `account #${index}: ${JSON.stringify(myAccounts?.[index])}, others ${JSON.stringify(accounts.value?.[index])}`,
        });
      }
    }
    const agreed = events.value ?? [];
    const count = (pallet: string, name: string) =>
      agreed.filter((event) => event.pallet === pallet && event.name === name).length;
    const expect = (ok: boolean, detail: string) =>
      ok || mismatches.push({ block: block.number, source: "all (reference)", what: "expectation", detail });
    expect(agreed.length === block.events, `${agreed.length} events decoded, System.Events holds ${block.events}`);
    expect(count("SubtensorModule", "NetworkMaxStakeSet") >= 1, "no SubtensorModule.NetworkMaxStakeSet");
    expect(
      count("Balances", "Transfer") === (block.upgrade ? 0 : transfers),
      `${count("Balances", "Transfer")} Balances.Transfer, expected ${block.upgrade ? 0 : transfers}`,
    );
  }
  return mismatches;
}

function reference<T>(
  outputs: DecodedOutput[],
  pick: (output: DecodedOutput) => T | undefined,
): { key: string; value: T | undefined } {
  const votes = new Map<string, { count: number; value: T | undefined }>();
  for (const output of outputs) {
    const value = pick(output);
    const key = JSON.stringify(value);
    const vote = votes.get(key) ?? { count: 0, value };
    vote.count++;
    votes.set(key, vote);
  }
  const [key, best] = [...votes.entries()].sort((a, b) => b[1].count - a[1].count)[0] ?? ["", { value: undefined }];
  return { key, value: best.value };
}

function firstDifference(expected: NormalizedEvent[], actual: NormalizedEvent[]): string {
  const show = (event: NormalizedEvent | undefined) =>
    event === undefined
      ? "nothing"
      : `${event.pallet}.${event.name} (${event.phase})${event.fields.length > 0 ? ` [${event.fields.join(", ")}]` : ""}`;
  const index = actual.findIndex((event, i) => JSON.stringify(event) !== JSON.stringify(expected[i]));
  const at = index < 0 ? actual.length : index;
  return `${actual.length} events (others ${expected.length}); event #${at}: ${show(actual[at])}, others ${show(expected[at])}`;
}
