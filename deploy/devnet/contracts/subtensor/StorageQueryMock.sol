// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SubtensorState} from "./SubtensorState.sol";

/// @title StorageQuery precompile (0x…0807) on the devnet, placed with `anvil_setCode`.
/// @notice No ABI, as on the chain: the whole calldata is a raw Substrate storage key
/// (`twox128(pallet) ‖ twox128(item) ‖ hasher(key…)`) and the output is the raw SCALE bytes stored at
/// it, empty when nothing is. Keys outside the chain's allow-listed pallets fail, as
/// `storage_query.rs` refuses them with "Invalid key". The bytes live in `SubtensorState` (which only
/// the simulator account may write, `setRawStorage`), so this mock keeps no state and exposes no
/// function beyond the real interface. State address: storage slot 0.
contract StorageQueryMock {
    error InvalidKey();

    SubtensorState internal state;

    fallback(bytes calldata key) external returns (bytes memory) {
        if (!allowed(key)) revert InvalidKey();
        return state.rawStorage(key);
    }

    /// `AUTHORIZED_PREFIXES`: twox128 of SubtensorModule, Swap, Balances, Proxy, Scheduler, Drand,
    /// Crowdloan, Sudo, Multisig and Timestamp. `System` is absent on purpose (no balances over EVM).
    function allowed(bytes calldata key) internal pure returns (bool) {
        if (key.length < 16) return false;
        bytes16 prefix = bytes16(key[:16]);
        return prefix == 0x658faa385070e074c85bf6b568cf0555 || prefix == 0x746cc6d1e9dbcf1d03868e492c1d836e
            || prefix == 0xc2261276cc9d1f8598ea4b6a74b15c2f || prefix == 0x1809d78346727a0ef58c0fa03bafa323
            || prefix == 0x3db7a24cfdc9de785974746c14a99df9 || prefix == 0xa285cdb66e8b8524ea70b1693c7b1e05
            || prefix == 0x3d9cad2baf702e20b136f4c8900cd802 || prefix == 0x5c0d1176a568c1f92944340dbfed9e9c
            || prefix == 0x7474449cca95dc5d0c00e71735a6d17d || prefix == 0xf0c365c3cf59d671eb72da0e7a4113c4;
    }
}
