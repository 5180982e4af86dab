// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @dev ERC-7683 (Cross Chain Intents) types and interfaces, as the current ERC text has them:
/// `FillInstruction.destinationChainId` is `uint256` and `open`/`openFor`/`fill` are payable. The older
/// text had `uint64`, which changes the `Open` event's topic0; the chain-ingestor decodes with this ABI,
/// so these layouts must not drift. Foreign addresses are `bytes32` so non-EVM chains fit.

/// @notice A gasless order, signed by the user and submitted by someone else through `openFor`.
struct GaslessCrossChainOrder {
    address originSettler;
    address user;
    uint256 nonce;
    uint256 originChainId;
    uint32 openDeadline;
    uint32 fillDeadline;
    bytes32 orderDataType;
    bytes orderData;
}

/// @notice An order the user opens with their own transaction through `open`.
struct OnchainCrossChainOrder {
    uint32 fillDeadline;
    bytes32 orderDataType;
    bytes orderData;
}

/// @notice The settler-independent view of an order, emitted in `Open` and returned by `resolve`.
struct ResolvedCrossChainOrder {
    address user;
    uint256 originChainId;
    uint32 openDeadline;
    uint32 fillDeadline;
    bytes32 orderId;
    Output[] maxSpent;
    Output[] minReceived;
    FillInstruction[] fillInstructions;
}

/// @notice A token amount on a chain; `token == 0` is the chain's native coin.
struct Output {
    bytes32 token;
    uint256 amount;
    bytes32 recipient;
    uint256 chainId;
}

/// @notice What a filler passes to the destination settler for one leg of the order.
struct FillInstruction {
    uint256 destinationChainId;
    bytes32 destinationSettler;
    bytes originData;
}

/// @notice ERC-7683 origin side: where users open orders and their input is escrowed.
interface IOriginSettler {
    /// @notice Emitted by `open`/`openFor` with the full resolved order, so fillers need no other source.
    event Open(bytes32 indexed orderId, ResolvedCrossChainOrder resolvedOrder);

    function openFor(GaslessCrossChainOrder calldata order, bytes calldata signature, bytes calldata originFillerData)
        external
        payable;

    function open(OnchainCrossChainOrder calldata order) external payable;

    function resolveFor(GaslessCrossChainOrder calldata order, bytes calldata originFillerData)
        external
        view
        returns (ResolvedCrossChainOrder memory);

    function resolve(OnchainCrossChainOrder calldata order) external view returns (ResolvedCrossChainOrder memory);
}

/// @notice ERC-7683 destination side: where fillers deliver the user's output.
interface IDestinationSettler {
    function fill(bytes32 orderId, bytes calldata originData, bytes calldata fillerData) external payable;
}
