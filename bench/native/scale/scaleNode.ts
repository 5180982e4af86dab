/**
 * The scale bench's Subtensor node: chopsticks executing the real runtime of a chain spec (as
 * libs/testing's subtensorNode does, manual block building, no timer), optionally with the
 * indexed next-key lookup of indexedKeys.mjs.
 *
 *   node --import tsx scaleNode.ts --genesis <chain spec> --port <port> [--indexed-keys]
 */
import { readFileSync } from "node:fs";
import { register } from "node:module";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    genesis: { type: "string" },
    port: { type: "string" },
    "indexed-keys": { type: "boolean", default: false },
  },
});
if (values.genesis === undefined || values.port === undefined) {
  console.error("scale-node: --genesis and --port are required");
  process.exit(78);
}
if (values["indexed-keys"]) register(new URL("./indexedKeys.mjs", import.meta.url));

// chopsticks is a dependency of @platform/testing, not of bench: imported from where pnpm linked it there.
const chopsticksEntry = new URL(
  "../../../libs/testing/node_modules/@acala-network/chopsticks/dist/esm/index.js",
  import.meta.url,
);
const { setupWithServer, BuildBlockMode } = (await import(chopsticksEntry.href)) as {
  setupWithServer(options: Record<string, unknown>): Promise<{ close(): Promise<void> }>;
  BuildBlockMode: { Manual: unknown };
};
const node = await setupWithServer({
  genesis: values.genesis,
  port: Number(values.port),
  host: "127.0.0.1",
  "build-block-mode": BuildBlockMode.Manual,
  // Every block stays readable: the source catches up over a backlog of 1,000+ blocks, and chopsticks
  // (no database here) forgets all but the newest 500 by default.
  "max-memory-block-count": 1_000_000,
});
if (values["indexed-keys"]) {
  // The indexed lookup skips the genesis layer (indexedKeys.mjs): every genesis key still present at
  // the head goes into an indexed layer, with the head's value, so no key is lost to iteration.
  const head = (
    node as unknown as {
      chain: {
        head: {
          get(key: string): Promise<string | undefined>;
          pushStorageLayer(): { setAll(values: [string, string][]): void };
        };
      };
    }
  ).chain.head;
  const top = (
    JSON.parse(readFileSync(values.genesis, "utf8")) as { genesis: { raw: { top: Record<string, string> } } }
  ).genesis.raw.top;
  const present: [string, string][] = [];
  for (const key of Object.keys(top).sort()) {
    const value = await head.get(key);
    if (value !== undefined) present.push([key, value]);
  }
  head.pushStorageLayer().setAll(present);
  console.log(`scale-node: ${present.length} genesis keys copied into an indexed layer`);
}
console.log(`scale-node: listening on ${values.port}${values["indexed-keys"] ? " (indexed next-key lookup)" : ""}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await node.close().catch(() => undefined);
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
