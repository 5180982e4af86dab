// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Multicall3 (devnet)
/// @notice Batches read calls into one `eth_call`, with the ABI of the canonical Multicall3 so viem's
/// `multicall` action works against it unchanged. The ingestor uses it to read many precompile values
/// at one block, which is both cheaper and consistent: every value in a batch belongs to the same state.
/// @dev Written for the local devnet; only the functions the platform calls are provided.
contract Multicall3 {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    /// @notice A call marked `allowFailure = false` reverted. Names the call and carries its revert data,
    /// so the caller can see which read in a batch failed and why.
    error CallFailed(uint256 index, bytes revertData);

    /// @notice Performs each call in order and returns every outcome. A failing call reverts the whole
    /// batch only when it does not allow failure.
    function aggregate3(Call3[] calldata calls) external returns (Result[] memory results) {
        uint256 count = calls.length;
        results = new Result[](count);
        for (uint256 index = 0; index < count; ++index) {
            Call3 calldata request = calls[index];
            (bool success, bytes memory returnData) = request.target.call(request.callData);
            if (!success && !request.allowFailure) revert CallFailed(index, returnData);
            results[index] = Result({success: success, returnData: returnData});
        }
    }

    /// @notice The block the batch was executed against, to label a batch of reads.
    function getBlockNumber() external view returns (uint256 blockNumber) {
        blockNumber = block.number;
    }

    /// @notice The hash of a recent block (zero beyond the last 256), so a batch can be tied to a fork.
    function getBlockHash(uint256 blockNumber) external view returns (bytes32 blockHash) {
        blockHash = blockhash(blockNumber);
    }

    function getCurrentBlockTimestamp() external view returns (uint256 timestamp) {
        timestamp = block.timestamp;
    }

    function getChainId() external view returns (uint256 chainId) {
        chainId = block.chainid;
    }

    function getEthBalance(address account) external view returns (uint256 balance) {
        balance = account.balance;
    }
}
