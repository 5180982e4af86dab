// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Erc1271Wallet
/// @notice A minimal smart-contract wallet owned by one EOA, for testing sign-in with contract accounts:
/// ERC-1271 `isValidSignature` accepts exactly the owner's ECDSA signature of the hash. Deployed through
/// `Erc6492WalletFactory`, so a test can also sign as the wallet before it exists (ERC-6492).
/// @dev The hash is checked as given, with no wallet-specific wrapping, so an owner's `personal_sign`
/// of a message is the wallet's signature of it. Real wallets bind the signature to their own address
/// (ERC-7739-style) to stop replay across accounts of one owner; this test fixture deliberately does not.
contract Erc1271Wallet {
    /// @dev `bytes4(keccak256("isValidSignature(bytes32,bytes)"))`, the ERC-1271 success value.
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant INVALID_SIGNATURE = 0xffffffff;
    /// @dev Half the secp256k1 group order. Signatures with a higher `s` are the malleable twin of a
    /// valid one (EIP-2); refusing them keeps each signature unique.
    uint256 internal constant HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    address public immutable owner;

    error ZeroOwner();
    error NotOwner(address caller);
    error CallFailed(bytes reason);

    constructor(address owner_) {
        // ecrecover returns zero for an unrecoverable signature, which must never match the owner.
        if (owner_ == address(0)) revert ZeroOwner();
        owner = owner_;
    }

    receive() external payable {}

    /// @notice Lets the owner act as the wallet, e.g. approve a token or open an intent.
    function execute(address target, uint256 value, bytes calldata data) external returns (bytes memory result) {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        bool ok;
        (ok, result) = target.call{value: value}(data);
        if (!ok) revert CallFailed(result);
    }

    /// @notice ERC-1271: `0x1626ba7e` if `signature` is the owner's 65-byte ECDSA signature of `hash`,
    /// `0xffffffff` otherwise. Never reverts on a bad signature, so validators read a clean "no".
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _recover(hash, signature) == owner ? MAGIC_VALUE : INVALID_SIGNATURE;
    }

    function _recover(bytes32 hash, bytes calldata signature) internal pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        // Some signers emit the recovery id as 0/1 instead of 27/28.
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return address(0);
        if (uint256(s) > HALF_CURVE_ORDER) return address(0);
        return ecrecover(hash, v, r, s);
    }
}
