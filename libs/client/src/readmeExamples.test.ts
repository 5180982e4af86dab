import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// What a reader copies from the README is what runs against real funds: its examples that send a
// transaction check the wallet's chain first, and none approves without limit unacknowledged.
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const codeBlocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe("the README's examples", () => {
  it("check the wallet's chain against the call's chainId before every sendTransaction", () => {
    const sending = codeBlocks.filter((block) => block.includes("sendTransaction("));
    expect(sending.length).toBeGreaterThan(0);
    for (const block of sending) {
      const check = block.search(/getChainId\(\)\)? !== chainId/);
      expect(check, block).toBeGreaterThanOrEqual(0);
      expect(check).toBeLessThan(block.indexOf("sendTransaction("));
    }
  });

  it("never pass approve: unlimited without its acknowledgement", () => {
    for (const block of codeBlocks.filter((code) => code.includes('approve: "unlimited"')))
      expect(block).toContain("acknowledgeUnlimitedApproval: true");
  });

  it("hold one intents quickstart, marked for the end-to-end test that runs it (test/e2e/src/support/readmeQuickstart.ts)", () => {
    const marked = [...readme.matchAll(/<!-- example: intents-quickstart -->\n```ts\n([\s\S]*?)```/g)];
    expect(marked).toHaveLength(1);
    // Runnable as it stands: its key comes from the environment, and nothing is left to the reader.
    const [, block] = marked[0]!;
    expect(block).toContain('env("PRIVATE_KEY")');
    expect(block).not.toMatch(/0x[0-9a-fA-F]{64}/);
    expect(block).not.toContain("…");
  });
});
