// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @dev Minimal safe transfers for settlers that hold ERC-20s and native coin. Free functions rather than
/// a library, so they are inlined into their callers and produce no deployable artefact of their own.

/// @notice `token` has no code. A call to such an address succeeds and returns nothing, which would
/// otherwise pass for a token that moved funds and let an order escrow money that never arrived.
error TokenHasNoCode(address token);

/// @notice The token reverted or returned `false`. `reason` is the token's own revert data (empty for a
/// plain `false`), kept so the caller can decode why: e.g. an ERC-6093 insufficient-allowance error.
error TokenTransferFailed(address token, bytes reason);

/// @notice Sending native coin to `to` failed (a contract that rejects or runs out of gas).
error NativeTransferFailed(address to, uint256 amount);

// transfer(address,uint256) and transferFrom(address,address,uint256); selectors avoid an interface
// contract whose only purpose would be `abi.encodeCall`.
bytes4 constant TRANSFER_SELECTOR = 0xa9059cbb;
bytes4 constant TRANSFER_FROM_SELECTOR = 0x23b872dd;

function safeTransferToken(address token, address to, uint256 amount) {
    callToken(token, abi.encodeWithSelector(TRANSFER_SELECTOR, to, amount));
}

function safeTransferTokenFrom(address token, address from, address to, uint256 amount) {
    callToken(token, abi.encodeWithSelector(TRANSFER_FROM_SELECTOR, from, to, amount));
}

function sendNative(address to, uint256 amount) {
    (bool ok,) = to.call{value: amount}("");
    if (!ok) revert NativeTransferFailed(to, amount);
}

/// @dev Accepts both tokens that return `true` and tokens that return nothing (USDT-style); a revert, a
/// `false` or a malformed return counts as failure.
function callToken(address token, bytes memory data) {
    if (token.code.length == 0) revert TokenHasNoCode(token);
    (bool ok, bytes memory returned) = token.call(data);
    if (!ok) revert TokenTransferFailed(token, returned);
    if (returned.length != 0 && (returned.length != 32 || abi.decode(returned, (uint256)) != 1)) {
        revert TokenTransferFailed(token, returned);
    }
}
