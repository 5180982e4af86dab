import { Gauge, type Registry } from "prom-client";

/** What one source tells about where its chain and its publishing stand (block numbers). */
export interface SourceMetrics {
  /** The newest block the chain reported. */
  head(block: bigint): void;
  /** The newest finalized block, where the source knows finality. */
  finalized(block: bigint): void;
  /**
   * The newest block whose records are committed to Kafka: after each commit (`atMs`, wall clock),
   * or, without `atMs`, where a restart resumed (its checkpoint).
   */
  published(block: bigint, atMs?: number): void;
}

/** The ingestor's metrics on a registry, one label per source (`<chainId>:<kind>`, the checkpoint's id). */
export interface IngestMetrics {
  source(sourceId: string): SourceMetrics;
}

/** Blocks from the published one to `ahead` (the head, or the finalized block), never below 0; undefined while either is unknown. */
export function blocksBehind(ahead: bigint | undefined, published: bigint | undefined): number | undefined {
  if (ahead === undefined || published === undefined) return undefined;
  return ahead > published ? Number(ahead - published) : 0;
}

/** The newest block at least `depth` below the head: what depth-based finality calls finalized. */
export function finalizedByDepth(latest: bigint, depth: number): bigint {
  const block = latest - BigInt(depth);
  return block < 0n ? 0n : block;
}

const byRegistry = new WeakMap<Registry, IngestMetrics>();

export function ingestMetrics(registry: Registry): IngestMetrics {
  const existing = byRegistry.get(registry);
  if (existing !== undefined) return existing;
  const gauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ["source"], registers: [registry] });
  const head = gauge("ingest_chain_head_block", "The newest block the chain's node reported to the source.");
  const finalized = gauge(
    "ingest_finalized_block",
    "The newest finalized block as the source judges finality (configured depth on EVM chains; GRANDPA's finalized head, no deeper than the depth, on the native network).",
  );
  const published = gauge(
    "ingest_published_block",
    "The newest block whose records (with the source's checkpoint) are committed to Kafka.",
  );
  const behindHead = gauge("ingest_blocks_behind_head", "Chain head minus the newest published block, never below 0.");
  const behindFinalized = gauge(
    "ingest_blocks_behind_finalized",
    "Newest finalized block minus the newest published block, never below 0.",
  );
  const lastPublish = gauge(
    "ingest_last_publish_timestamp_seconds",
    "Wall-clock time (unix seconds) of the source's last commit to Kafka.",
  );
  const metrics: IngestMetrics = {
    source(sourceId) {
      const labels = { source: sourceId };
      const known: { head?: bigint; finalized?: bigint; published?: bigint } = {};
      const update = () => {
        const toHead = blocksBehind(known.head, known.published);
        if (toHead !== undefined) behindHead.set(labels, toHead);
        const toFinalized = blocksBehind(known.finalized, known.published);
        if (toFinalized !== undefined) behindFinalized.set(labels, toFinalized);
      };
      return {
        head(block) {
          known.head = block;
          head.set(labels, Number(block));
          update();
        },
        finalized(block) {
          known.finalized = block;
          finalized.set(labels, Number(block));
          update();
        },
        published(block, atMs) {
          known.published = block;
          published.set(labels, Number(block));
          if (atMs !== undefined) lastPublish.set(labels, atMs / 1_000);
          update();
        },
      };
    },
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
