import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/*
 * Each service has a README of about a page that says what it owns, what it reads and writes
 * (topics, keys, tables), its configuration, and how to run its tests alone (issue 45, point 2).
 */
const SERVICES = fileURLToPath(new URL("../../../services/", import.meta.url));
const MAX_BYTES = 18 * 1024;
const LINE_MAX_CHARACTERS = 400;
const SECTIONS = ["Reads and writes", "Configuration", "Tests"];

const services = readdirSync(SERVICES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The text of the `## ` section whose heading is `heading`, up to the next `## `. */
function section(text: string, heading: string): string | undefined {
  const lines = text.split("\n");
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) return undefined;
  const end = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

describe("each service's README", () => {
  it("exists for every service", () => {
    expect(services).toEqual(
      expect.arrayContaining(["auth", "chain-ingestor", "data-query", "gateway", "intents-gateway", "projector", "tc"]),
    );
  });

  it.each(services)(
    "%s: says what it owns, reads and writes, its configuration and how to run its tests alone",
    (name) => {
      const text = readFileSync(join(SERVICES, name, "README.md"), "utf8");
      expect(text.startsWith(`# ${name}\n`), "opens with the service's name").toBe(true);
      // What it owns: the paragraph under the title.
      expect(text.split("\n\n")[1]?.length ?? 0, "a paragraph on what it owns").toBeGreaterThan(100);
      for (const heading of SECTIONS) expect(section(text, heading), `## ${heading}`).toBeDefined();
      expect(
        section(text, "Reads and writes"),
        "names its Kafka, Redis and PostgreSQL use, or that it has none",
      ).toMatch(/Kafka/);
      expect(section(text, "Tests"), "a command running its tests alone").toContain(
        `node_modules/.bin/vitest run services/${name}`,
      );
      expect(Buffer.byteLength(text), "about a page").toBeLessThanOrEqual(MAX_BYTES);
      const long = text.split("\n").filter((line) => line.length > LINE_MAX_CHARACTERS);
      expect(long, `no line over ${LINE_MAX_CHARACTERS} characters`).toEqual([]);
    },
  );
});
