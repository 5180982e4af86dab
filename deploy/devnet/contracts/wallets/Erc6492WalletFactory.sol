// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Erc1271Wallet} from "./Erc1271Wallet.sol";

/// @title Erc6492WalletFactory
/// @notice Deploys `Erc1271Wallet`s with CREATE2, so a wallet's address is known before it exists. An
/// ERC-6492 signature for an undeployed wallet carries this factory and `deploy(owner, salt)` calldata;
/// a verifier (viem's universal validator) runs that call in a simulation, then asks the wallet.
contract Erc6492WalletFactory {
    event WalletDeployed(address indexed wallet, address indexed owner, bytes32 salt);

    /// @notice The address `deploy(owner, salt)` creates. The owner is part of the init code, so two
    /// owners with one salt get different wallets and nobody can take another owner's address.
    function getAddress(address owner, bytes32 salt) public view returns (address) {
        bytes32 initCodeHash = keccak256(abi.encodePacked(type(Erc1271Wallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash)))));
    }

    /// @notice Deploys the wallet, or returns it if it already exists: ERC-6492 verifiers may run the
    /// deployment for a wallet that has since been deployed, and that must not fail.
    function deploy(address owner, bytes32 salt) external returns (address wallet) {
        wallet = getAddress(owner, salt);
        if (wallet.code.length != 0) return wallet;
        new Erc1271Wallet{salt: salt}(owner);
        emit WalletDeployed(wallet, owner, salt);
    }
}
