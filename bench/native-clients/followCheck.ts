/**
 * polkadot-api following the chain (chainHead_v1, blocks pinned as they come) across the runtime
 * upgrade, not reading them back through archive_v1 as run.ts does: does it decode the events of the
 * upgrade block? (polkadot-api/polkadot-api#1434: it decodes them with the new runtime's metadata.)
 * Not part of the benchmark (the failing block alone costs ~30 s); about 90 s:
 *
 *   cd bench && npx tsx --conditions=@platform/source native-clients/followCheck.ts
 */
import { createClient } from "polkadot-api";
import { buildBacklog } from "./chain.js";
import { webSocketProvider } from "./clients/papi.js";
import { webSocketClass } from "./rawRpc.js";

interface EventsQuery {
  query: { System: { Events: { getValue(options: { at: string }): Promise<unknown[]> } } };
}

const WebSocket = await webSocketClass();
const seen = new Map<number, string>();
let client: ReturnType<typeof createClient> | undefined;
const backlog = await buildBacklog({
  blocks: 2,
  transfersPerBlock: 20,
  log: console.log,
  async onStarted(node) {
    client = createClient(webSocketProvider(WebSocket, node.rpcUrl));
    const api = client.getUnsafeApi() as unknown as EventsQuery;
    client.finalizedBlock$.subscribe((block) => {
      const started = performance.now();
      const took = () => `${Math.round(performance.now() - started)} ms`;
      api.query.System.Events.getValue({ at: block.hash }).then(
        (events) => seen.set(block.number, `${events.length} events (${took()})`),
        (error: unknown) => seen.set(block.number, `FAILED: ${String(error).split("\n")[0]} (${took()})`),
      );
    });
  },
});
try {
  const last = backlog.blocks.at(-1)?.number ?? 0;
  for (let waited = 0; !seen.has(last) && waited < 120; waited++)
    await new Promise((resolve) => setTimeout(resolve, 1000));
  for (const block of backlog.blocks) {
    console.log(
      `#${block.number} (${block.upgrade ? "upgrade block, executed by spec 204" : `spec ${block.specVersion}`}, ${block.events} events): polkadot-api following: ${seen.get(block.number) ?? "no answer"}`,
    );
  }
} finally {
  client?.destroy();
  await backlog.stop();
}
