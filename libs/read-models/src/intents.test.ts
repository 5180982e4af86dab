import { describe, expect, it } from "vitest";
import {
  idPrefixes,
  intentsKeys,
  intentsReadKeys,
  orderVersion,
  placeholderSuffix,
  recordKeyOfMember,
  txId,
  txVersion,
  versionOf,
} from "./intents.js";

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

describe("intents key strings", () => {
  // Stored data is named by these strings: a change here orphans every record in Redis.
  it("are the stored layout's, exactly", () => {
    const orderId = `0x${"ab".repeat(32)}`;
    const txHash = `0x${"cd".repeat(32)}`;
    const user = "0x71C7656EC7ab88b098defB751B7401B5f6d8976F";
    expect(intentsKeys.order(orderId)).toBe(`rm:{intents}:order:${orderId}`);
    expect(intentsKeys.order(placeholderSuffix("31337", txHash))).toBe(`rm:{intents}:order:tx:31337:${txHash}`);
    expect(intentsKeys.events(orderId)).toBe(`rm:{intents}:events:${orderId}`);
    expect(intentsKeys.tx("31337", txHash)).toBe(`rm:{intents}:tx:31337:${txHash}`);
    expect(intentsKeys.txState("31337", txHash)).toBe(`rm:{intents}:txstate:31337:${txHash}`);
    expect(intentsKeys.pending(user)).toBe(`rm:{intents}:user:${user}:pending`);
    expect(intentsKeys.expired(user)).toBe(`rm:{intents}:user:${user}:expired`);
    expect(intentsKeys.head("31338")).toBe("rm:{intents}:head:31338");
    expect(intentsKeys.chains).toBe("rm:{intents}:chains");
    expect(intentsKeys.deadlines("31338")).toBe("rm:{intents}:deadlines:31338");
    expect(intentsKeys.expiry("31338")).toBe("rm:{intents}:expiry:31338");
    expect(intentsKeys.unsafe("31337")).toBe("rm:{intents}:unsafe:31337");
    expect(intentsKeys.unfinalized("31337")).toBe("rm:{intents}:unfinalized:31337");
    expect(intentsKeys.offset("chain.intents.v1", 2)).toBe("rm:{intents}:offset:chain.intents.v1:2");
    expect(intentsKeys.versions).toBe("rm:{intents}:versions");
    expect(intentsKeys.marker).toBe("rm:{intents}:projection");
    expect(txId("31337", txHash.toUpperCase().replace("0X", "0x"))).toBe(`31337:${txHash}`);
  });

  it("readers lower-case order ids and transaction hashes, and keep addresses as given", () => {
    const orderId = `0x${"AB".repeat(32)}`;
    const txHash = `0x${"CD".repeat(32)}`;
    const user = "0x71C7656EC7ab88b098defB751B7401B5f6d8976F";
    expect(intentsReadKeys.order(orderId)).toBe(`rm:{intents}:order:0x${"ab".repeat(32)}`);
    expect(intentsReadKeys.txOrder("31337", txHash)).toBe(`rm:{intents}:order:tx:31337:0x${"cd".repeat(32)}`);
    expect(intentsReadKeys.txOrders("31337", txHash)).toBe(`rm:{intents}:tx:31337:0x${"cd".repeat(32)}`);
    expect(intentsReadKeys.txState("31337", txHash)).toBe(`rm:{intents}:txstate:31337:0x${"cd".repeat(32)}`);
    expect(intentsReadKeys.userPending(user)).toBe(`rm:{intents}:user:${user}:pending`);
    expect(intentsReadKeys.userExpired(user)).toBe(`rm:{intents}:user:${user}:expired`);
    expect(intentsReadKeys.head("31337")).toBe("rm:{intents}:head:31337");
    expect(intentsReadKeys.marker).toBe("rm:{intents}:projection");
    expect(recordKeyOfMember(`tx:31337:${txHash}`)).toBe(`rm:{intents}:order:tx:31337:0x${"cd".repeat(32)}`);
    expect(recordKeyOfMember(orderId)).toBe(`rm:{intents}:order:0x${"ab".repeat(32)}`);
  });
});
