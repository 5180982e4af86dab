/**
 * `FullSettler.open`, copied from the contract's committed ABI (libs/settler, generated from
 * deploy/devnet/contracts by `pnpm gen:contracts`); calls.test.ts fails when the two differ. The
 * client is published on its own, so it carries the one function it encodes instead of the
 * workspace package.
 */
export const fullSettlerOpenAbi = [
  {
    inputs: [
      {
        components: [
          { internalType: "uint32", name: "fillDeadline", type: "uint32" },
          { internalType: "bytes32", name: "orderDataType", type: "bytes32" },
          { internalType: "bytes", name: "orderData", type: "bytes" },
        ],
        internalType: "struct OnchainCrossChainOrder",
        name: "order",
        type: "tuple",
      },
    ],
    name: "open",
    outputs: [],
    stateMutability: "payable",
    type: "function",
  },
] as const;

/** `abi.encode(FullOrderParams)`: what a quote's `orderData` holds (deploy/devnet/README.md, FullSettler orders). */
export const fullOrderParamsAbi = [
  {
    type: "tuple",
    components: [
      { name: "nonce", type: "uint256" },
      { name: "destinationChainId", type: "uint256" },
      { name: "inputToken", type: "bytes32" },
      { name: "inputAmount", type: "uint256" },
      { name: "outputToken", type: "bytes32" },
      { name: "outputAmount", type: "uint256" },
      { name: "recipient", type: "bytes32" },
    ],
  },
] as const;

/** `FullSettler.ORDER_DATA_TYPE()`: keccak256 of the FullOrderParams type string. */
export const FULL_ORDER_DATA_TYPE = "0x710ff9c18e186a951058948b3f672872edcc77cebb109fa91b4dd01bda901fcc";
