import { Metadata } from "@grpc/grpc-js";
import type { MetadataEntry } from "@platform/proto/rpc/v1/call_batch";

/** A batched call's metadata as entries: a "-bin" key's value is its bytes, any other key's UTF-8 text. */
export function entriesOfMetadata(metadata: Metadata): MetadataEntry[] {
  const entries: MetadataEntry[] = [];
  for (const [key, values] of Object.entries(metadata.toJSON())) {
    for (const value of values)
      entries.push({ key, value: typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value) });
  }
  return entries;
}

/** The Metadata the entries describe (keys are lower-cased by Metadata itself). */
export function metadataOfEntries(entries: MetadataEntry[]): Metadata {
  const metadata = new Metadata();
  for (const { key, value } of entries)
    metadata.add(key, key.endsWith("-bin") ? Buffer.from(value) : value.toString("utf8"));
  return metadata;
}
