import { describe, expect, it } from "vitest";
import { decodeOnchainOrder, ORDER_DATA_TYPE } from "./orderDataCodec.js";

// Made with deploy/devnet's encodeOrderData and orderDataTypeHash (the helpers its contract tests pin
// to the deployed FullSettler): nonce 7, destination 31338, 100 USDC in, 99.85 out.
const DEVNET_ORDER_DATA_TYPE = "0x710ff9c18e186a951058948b3f672872edcc77cebb109fa91b4dd01bda901fcc";
const DEVNET_ORDER_DATA =
  "0x00000000000000000000000000000000000000000000000000000000000000070000000000000000000000000000000000000000000000000000000000007a6a0000000000000000000000005fbdb2315678afecb367f032d93f642f64180aa30000000000000000000000000000000000000000000000000000000005f5e100000000000000000000000000e7f1725e7734ce288f8367e1bb143e90bb3f05120000000000000000000000000000000000000000000000000000000005f3971000000000000000000000000052908400098527886e0f7030069857d2e4169ee7";

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe("decodeOnchainOrder", () => {
  it("agrees with the devnet's order data type and encoding", () => {
    expect(ORDER_DATA_TYPE).toBe(DEVNET_ORDER_DATA_TYPE);
    expect(
      decodeOnchainOrder({
        originChainId: 31337,
        fillDeadline: 1_763_770_900,
        orderDataType: DEVNET_ORDER_DATA_TYPE.toUpperCase().replace("0X", "0x"),
        orderData: DEVNET_ORDER_DATA,
      }),
    ).toEqual({
      originChainId: "31337",
      destinationChainId: "31338",
      inputToken: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      inputAmount: "100000000",
      outputToken: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
      outputAmount: "99850000",
      recipient: "0x52908400098527886E0F7030069857D2E4169EE7",
      nonce: "7",
      fillDeadline: 1_763_770_900,
    });
  });

  it("refuses another order data type, a wrong length and a word that is not an address", () => {
    const order = {
      originChainId: 31337,
      fillDeadline: 1,
      orderDataType: DEVNET_ORDER_DATA_TYPE,
      orderData: DEVNET_ORDER_DATA,
    };
    expect(codeOf(() => decodeOnchainOrder({ ...order, orderDataType: `0x${"00".repeat(32)}` }))).toBe(
      "UNSUPPORTED_ORDER_DATA_TYPE",
    );
    expect(codeOf(() => decodeOnchainOrder({ ...order, orderData: DEVNET_ORDER_DATA.slice(0, -64) }))).toBe(
      "INVALID_REQUEST",
    );
    const dirtyRecipient = `${DEVNET_ORDER_DATA.slice(0, -64)}ff${DEVNET_ORDER_DATA.slice(-62)}`;
    expect(codeOf(() => decodeOnchainOrder({ ...order, orderData: dirtyRecipient }))).toBe("INVALID_REQUEST");
  });
});
