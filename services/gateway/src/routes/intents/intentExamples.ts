/** Example bodies for the OpenAPI document of the intents routes (the shapes renderIntent produces). */

export const EXAMPLE_USER = "0x52908400098527886E0F7030069857D2E4169EE7";
export const EXAMPLE_ORDER_ID = "0x9f2c5a1e7d4b3c2a1f0e9d8c7b6a5f4e3d2c1b0a99887766554433221100ffee";
export const EXAMPLE_TX_HASH = "0x5f1c3e2d1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d";
const TOKEN_ORIGIN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const TOKEN_DESTINATION = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";

export const exampleIntent = {
  _links: {
    self: { href: `/intents/v1/intents/${EXAMPLE_ORDER_ID}` },
    transaction: { href: `/intents/v1/intents?originChainId=31337&txHash=${EXAMPLE_TX_HASH}` },
  },
  orderId: EXAMPLE_ORDER_ID,
  status: "OPEN",
  isFinal: false,
  userAddress: EXAMPLE_USER,
  originChainId: 31337,
  originTxHash: EXAMPLE_TX_HASH,
  destinationChainId: 31338,
  input: { token: TOKEN_ORIGIN, amount: "100000000" },
  output: { token: TOKEN_DESTINATION, amount: "99850000", recipient: EXAMPLE_USER },
  fillDeadline: 1763770900,
  refundableAt: "2025-11-22T00:22:40.000Z",
  filler: null,
  opened: {
    chainId: 31337,
    blockNumber: 1204,
    blockHash: "0x8e3c…",
    parentHash: "0x1a7b…",
    blockTimestamp: "2025-11-22T00:06:40.000Z",
    txHash: EXAMPLE_TX_HASH,
    txIndex: 0,
    logIndex: 1,
    finality: "safe",
  },
  filled: null,
  settled: null,
  refunded: null,
  notifiedAt: "2025-11-22T00:06:38.512Z",
  updatedAt: "2025-11-22T00:06:41.020Z",
  asOf: [
    {
      chainId: 31337,
      blockNumber: 1210,
      blockHash: "0x44d0…",
      timestamp: "2025-11-22T00:06:46.000Z",
      finality: "latest",
    },
    {
      chainId: 31338,
      blockNumber: 987,
      blockHash: "0x0c9e…",
      timestamp: "2025-11-22T00:06:45.000Z",
      finality: "latest",
    },
  ],
};

export const exampleTokens = { origin: TOKEN_ORIGIN, destination: TOKEN_DESTINATION };
