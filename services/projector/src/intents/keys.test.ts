import { describe, expect, it } from "vitest";
import { idPrefixes, intentsKeys, orderVersion, placeholderSuffix, txId, txVersion, versionOf } from "./keys.js";

describe("intents keys", () => {
  it("id prefixes make the same keys and version names as the key functions", () => {
    const orderId = `0x${"ab".repeat(32)}`;
    expect(idPrefixes.order.version + orderId).toBe(orderVersion(orderId));
    expect(idPrefixes.order.events + orderId).toBe(intentsKeys.events(orderId));
    expect(idPrefixes.order.record + orderId).toBe(intentsKeys.order(orderId));
    const chainId = "31337";
    const txHash = `0x${"CD".repeat(32)}`;
    const tx = txId(chainId, txHash);
    const lower = txHash.toLowerCase();
    expect(idPrefixes.tx.version + tx).toBe(txVersion(tx));
    expect(idPrefixes.tx.placeholder + tx).toBe(intentsKeys.order(placeholderSuffix(chainId, lower)));
    expect(idPrefixes.tx.state + tx).toBe(intentsKeys.txState(chainId, lower));
    expect(idPrefixes.tx.orders + tx).toBe(intentsKeys.tx(chainId, lower));
    // And each key counts under its entity's version.
    expect(versionOf(idPrefixes.order.events + orderId)).toBe(orderVersion(orderId));
    expect(versionOf(idPrefixes.tx.placeholder + tx)).toBe(txVersion(tx));
    expect(versionOf(idPrefixes.tx.state + tx)).toBe(txVersion(tx));
    expect(versionOf(idPrefixes.tx.orders + tx)).toBe(txVersion(tx));
  });
});
