// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {
    STAKING_V2_PRECOMPILE,
    WEI_PER_RAO,
    AxonInfo,
    Hyperparameters,
    Neuron,
    Pool
} from "./SubtensorTypes.sol";

/// @title The devnet's Subtensor state: pools, neurons and stake positions behind the precompile mocks.
/// @notice The precompile mocks at 0x…0802/0803/0805/0807/0808 hold no state of their own: several of them
/// read the same data (a stake moves a pool, the metagraph values stake at pool prices), so it lives
/// here, in one ordinary contract, and each mock forwards to it. Only the configured simulator account
/// changes it directly (registration, emissions, scores); anyone stakes through the staking mock.
///
/// Custody: this contract holds, in native coin, every rao in every pool (`taoIn`), so that unstaking
/// pays the staker back from a real balance and `eth_getBalance` of every account stays consistent with
/// the transactions in the blocks. Every function that adds TAO to a pool takes it as `msg.value`.
///
/// Simplifications against the chain, on purpose: swaps have no fee and use the constant-product
/// formula with balanced weights (so the price is exactly `taoIn / alphaIn`); a position is an alpha
/// amount, not shares of a hotkey pool; the alpha-out emission goes straight to the subnet's permitted
/// validators' own positions instead of accruing until the epoch.
contract SubtensorState {
    error NotSimulator();
    error NotPrecompile();
    error UnknownSubnet(uint16 netuid);
    error SubnetExists(uint16 netuid);
    error UnknownHotkey(bytes32 hotkey);
    error UnknownUid(uint16 netuid, uint16 uid);
    error WrongValue(uint256 expectedWei, uint256 sentWei);
    error NotEnoughStake(uint64 available, uint256 requested);
    error AmountTooLarge(uint256 amount);
    error ZeroAmount();
    error LengthMismatch();
    error PaymentFailed();

    struct PositionKey {
        bytes32 hotkey;
        uint16 netuid;
    }

    uint16 public constant ROOT_NETUID = 0;
    /// What the chain now answers for rank and trust, both deprecated.
    uint16 public constant DEPRECATED_SCORE = 0;

    /// The only account that may change state other than by staking.
    address public immutable simulator;

    uint16[] internal netuids;
    mapping(uint16 => Pool) internal pools;
    mapping(uint16 => Hyperparameters) internal hyperparameters;
    mapping(uint16 => Neuron[]) internal neurons;
    /// `Owner[hotkey]`: the coldkey that registered it; zero for an unknown hotkey.
    mapping(bytes32 => bytes32) public hotkeyOwner;

    /// Positions: alpha by (hotkey, coldkey, netuid), with both directions indexed for enumeration.
    mapping(bytes32 => mapping(bytes32 => mapping(uint16 => uint64))) internal alpha;
    mapping(bytes32 => mapping(uint16 => uint64)) internal hotkeyAlpha;
    mapping(bytes32 => mapping(uint16 => bytes32[])) internal stakers;
    mapping(bytes32 => mapping(uint16 => mapping(bytes32 => uint256))) internal stakerSlot;
    mapping(bytes32 => PositionKey[]) internal positions;
    mapping(bytes32 => mapping(bytes32 => mapping(uint16 => uint256))) internal positionSlot;

    /// Raw Substrate storage for StorageQuery (0x…0807): SCALE bytes by raw storage key. Holds the
    /// items no precompile exposes (names, symbols, tempos, owners, identities, takes, issuance).
    mapping(bytes => bytes) internal rawValues;

    /// `TaoWeight` and `CKBurn` (u64 ratios over u64::MAX) and the nominator minimum (rao).
    uint64 public taoWeight;
    uint64 public ckBurn;
    uint64 public nominatorMinRequiredStake;

    constructor(address simulator_) {
        simulator = simulator_;
        // The chain's initial TaoWeight (runtime/src/lib.rs), about 0.0527.
        taoWeight = 971_718_665_099_567_868;
        nominatorMinRequiredStake = 0;
    }

    modifier onlySimulator() {
        if (msg.sender != simulator) revert NotSimulator();
        _;
    }

    modifier onlyStakingPrecompile() {
        if (msg.sender != STAKING_V2_PRECOMPILE) revert NotPrecompile();
        _;
    }

    // ---------------------------------------------------------------- simulator: set-up and changes

    /// Registers a subnet whose pool starts with `taoIn` rao (sent as `msg.value`) against `alphaIn`.
    function registerSubnet(
        uint16 netuid,
        uint16 mechanism,
        uint64 taoIn,
        uint64 alphaIn,
        uint64 emaPriceHalvingBlocks,
        Hyperparameters calldata params
    ) external payable onlySimulator {
        if (pools[netuid].exists) revert SubnetExists(netuid);
        requireValue(taoIn);
        Pool storage subnet = pools[netuid];
        subnet.exists = true;
        subnet.mechanism = mechanism;
        subnet.registrationBlock = uint64(block.number);
        subnet.taoIn = taoIn;
        subnet.alphaIn = alphaIn;
        subnet.emaPriceHalvingBlocks = emaPriceHalvingBlocks;
        subnet.movingPrice9 = price9(subnet);
        hyperparameters[netuid] = params;
        netuids.push(netuid);
    }

    function setHyperparameters(uint16 netuid, Hyperparameters calldata params) external onlySimulator {
        requireSubnet(netuid);
        hyperparameters[netuid] = params;
    }

    /// Adds a UID to the subnet's metagraph; the hotkey's owner becomes `coldkey` if it had none.
    function registerNeuron(uint16 netuid, bytes32 hotkey, bytes32 coldkey, AxonInfo calldata axon)
        external
        onlySimulator
        returns (uint16 uid)
    {
        requireSubnet(netuid);
        if (hotkeyOwner[hotkey] == bytes32(0)) hotkeyOwner[hotkey] = coldkey;
        uid = uint16(neurons[netuid].length);
        Neuron storage entry = neurons[netuid].push();
        entry.hotkey = hotkey;
        entry.coldkey = hotkeyOwner[hotkey];
        entry.active = true;
        entry.lastUpdate = uint64(block.number);
        entry.registrationBlock = uint64(block.number);
        entry.axon = axon;
    }

    function setNeuronScores(
        uint16 netuid,
        uint16 uid,
        uint16 consensus,
        uint16 incentive,
        uint16 dividends,
        uint16 vtrust,
        bool validatorPermit,
        bool active
    ) external onlySimulator {
        if (uid >= neurons[netuid].length) revert UnknownUid(netuid, uid);
        Neuron storage entry = neurons[netuid][uid];
        entry.consensus = consensus;
        entry.incentive = incentive;
        entry.dividends = dividends;
        entry.vtrust = vtrust;
        entry.validatorPermit = validatorPermit;
        entry.active = active;
        entry.lastUpdate = uint64(block.number);
    }

    /// Stakes for any coldkey (a Substrate-side account that has no EVM address), paid by the simulator.
    function stakeFor(bytes32 coldkey, bytes32 hotkey, uint64 amountRao, uint16 netuid) external payable onlySimulator {
        addStake(coldkey, hotkey, amountRao, netuid);
    }

    /// Unstakes for any coldkey; the proceeds go to the simulator, standing in for the coldkey's wallet.
    function unstakeFor(bytes32 coldkey, bytes32 hotkey, uint64 amountAlpha, uint16 netuid) external onlySimulator {
        pay(msg.sender, removeStake(coldkey, hotkey, amountAlpha, netuid));
    }

    /// One block of emissions, per subnet: TAO and alpha injected into the pool (the TAO sent as
    /// `msg.value`, standing in for minting), and alpha-out credited to the permitted validators. Every
    /// pool's moving price then steps towards its spot price.
    function applyBlockEmissions(
        uint16[] calldata subnets,
        uint64[] calldata taoInEmission,
        uint64[] calldata alphaInEmission,
        uint64[] calldata alphaOutEmission
    ) external payable onlySimulator {
        uint256 count = subnets.length;
        if (taoInEmission.length != count || alphaInEmission.length != count || alphaOutEmission.length != count) {
            revert LengthMismatch();
        }
        uint256 totalTao;
        for (uint256 i = 0; i < count; i++) {
            Pool storage subnet = requireSubnet(subnets[i]);
            subnet.taoIn += taoInEmission[i];
            subnet.alphaIn += alphaInEmission[i];
            subnet.taoInEmission = taoInEmission[i];
            subnet.alphaInEmission = alphaInEmission[i];
            subnet.alphaOutEmission = alphaOutEmission[i];
            totalTao += taoInEmission[i];
            creditValidators(subnets[i], alphaOutEmission[i]);
        }
        requireValue(totalTao);
        for (uint256 i = 0; i < netuids.length; i++) {
            Pool storage subnet = pools[netuids[i]];
            // An EMA with weight 1/8 per simulated block; the chain uses a half-life in blocks instead.
            int256 spot = int256(uint256(price9(subnet)));
            int256 moving = int256(uint256(subnet.movingPrice9));
            subnet.movingPrice9 = uint64(uint256(moving + (spot - moving) / 8));
        }
    }

    /// Writes raw storage values (SCALE bytes) at raw storage keys; an empty value removes the key.
    function setRawStorage(bytes[] calldata keys, bytes[] calldata values) external onlySimulator {
        if (keys.length != values.length) revert LengthMismatch();
        for (uint256 i = 0; i < keys.length; i++) {
            if (values[i].length == 0) delete rawValues[keys[i]];
            else rawValues[keys[i]] = values[i];
        }
    }

    function setTaoWeight(uint64 value) external onlySimulator {
        taoWeight = value;
    }

    function setCKBurn(uint64 value) external onlySimulator {
        ckBurn = value;
    }

    // ---------------------------------------------------------------- staking precompile (0x…0805)

    function addStakeFromEvm(address caller, bytes32 hotkey, uint256 amountRao, uint256 netuid)
        external
        payable
        onlyStakingPrecompile
    {
        addStake(coldkeyOf(caller), hotkey, toU64(amountRao), toNetuid(netuid));
    }

    function removeStakeFromEvm(address caller, bytes32 hotkey, uint256 amountAlpha, uint256 netuid)
        external
        onlyStakingPrecompile
    {
        pay(caller, removeStake(coldkeyOf(caller), hotkey, toU64(amountAlpha), toNetuid(netuid)));
    }

    function removeStakeFullFromEvm(address caller, bytes32 hotkey, uint256 netuid) external onlyStakingPrecompile {
        bytes32 coldkey = coldkeyOf(caller);
        uint16 subnet = toNetuid(netuid);
        pay(caller, removeStake(coldkey, hotkey, alpha[hotkey][coldkey][subnet], subnet));
    }

    // ---------------------------------------------------------------- reads for the mocks

    /// The bytes stored at a raw storage key, empty when none (what StorageQuery answers).
    function rawStorage(bytes calldata key) external view returns (bytes memory) {
        return rawValues[key];
    }

    function subnetList() external view returns (uint16[] memory) {
        return netuids;
    }

    function pool(uint16 netuid) external view returns (Pool memory) {
        return pools[netuid];
    }

    function hyperparametersOf(uint16 netuid) external view returns (Hyperparameters memory) {
        return hyperparameters[netuid];
    }

    /// `getAlphaPrice`: TAO per alpha truncated to 9 decimals, then scaled by 1e9 again (so 1e18 overall).
    function alphaPrice(uint16 netuid) public view returns (uint256) {
        return uint256(price9(pools[netuid])) * 1e9;
    }

    function movingAlphaPrice(uint16 netuid) external view returns (uint256) {
        return uint256(pools[netuid].movingPrice9) * 1e9;
    }

    /// Sum of the non-root prices below 1, as the chain's `getSumAlphaPrice`.
    function sumAlphaPrice() external view returns (uint256 sum) {
        for (uint256 i = 0; i < netuids.length; i++) {
            if (netuids[i] == 0) continue;
            uint256 price = alphaPrice(netuids[i]);
            if (price < 1e18) sum += price;
        }
    }

    function simSwapTaoForAlpha(uint16 netuid, uint64 tao) external view returns (uint256) {
        return taoToAlpha(pools[netuid], tao);
    }

    function simSwapAlphaForTao(uint16 netuid, uint64 amount) external view returns (uint256) {
        return alphaToTao(pools[netuid], amount);
    }

    function neuronCount(uint16 netuid) external view returns (uint16) {
        return uint16(neurons[netuid].length);
    }

    /// An out-of-range UID reads as an empty neuron, as the chain's vectors default to zero.
    function neuron(uint16 netuid, uint16 uid) external view returns (Neuron memory empty) {
        if (uid < neurons[netuid].length) return neurons[netuid][uid];
        return empty;
    }

    function stake(bytes32 hotkey, bytes32 coldkey, uint256 netuid) external view returns (uint256) {
        return netuid > type(uint16).max ? 0 : alpha[hotkey][coldkey][uint16(netuid)];
    }

    function totalHotkeyAlpha(bytes32 hotkey, uint256 netuid) external view returns (uint256) {
        return netuid > type(uint16).max ? 0 : hotkeyAlpha[hotkey][uint16(netuid)];
    }

    /// The coldkeys with a position on (hotkey, netuid), as `getAlphaStakedValidators` returns them.
    function coldkeysStakingTo(bytes32 hotkey, uint256 netuid) external view returns (uint256[] memory keys) {
        if (netuid > type(uint16).max) return keys;
        bytes32[] storage list = stakers[hotkey][uint16(netuid)];
        keys = new uint256[](list.length);
        for (uint256 i = 0; i < list.length; i++) keys[i] = uint256(list[i]);
    }

    /// The hotkey's alpha on every subnet valued at spot price, rao (`getTotalHotkeyStake`, metagraph `getStake`).
    function hotkeyStakeValue(bytes32 hotkey) public view returns (uint256 value) {
        for (uint256 i = 0; i < netuids.length; i++) {
            Pool storage subnet = pools[netuids[i]];
            value += (uint256(hotkeyAlpha[hotkey][netuids[i]]) * price9(subnet)) / 1e9;
        }
    }

    /// What unstaking every position of the coldkey would pay, rao (`getTotalColdkeyStake`).
    function coldkeyStakeValue(bytes32 coldkey) external view returns (uint256 value) {
        PositionKey[] storage list = positions[coldkey];
        for (uint256 i = 0; i < list.length; i++) {
            value += alphaToTao(pools[list[i].netuid], alpha[list[i].hotkey][coldkey][list[i].netuid]);
        }
    }

    function coldkeyStakeValueOnSubnet(bytes32 coldkey, uint256 netuid) external view returns (uint256 value) {
        PositionKey[] storage list = positions[coldkey];
        for (uint256 i = 0; i < list.length; i++) {
            if (list[i].netuid != netuid) continue;
            value += alphaToTao(pools[list[i].netuid], alpha[list[i].hotkey][coldkey][list[i].netuid]);
        }
    }

    /// Frontier's `HashedAddressMapping<BlakeTwo256>`: blake2b-256 of `"evm:" ‖ h160`, computed with the
    /// BLAKE2 F precompile (EIP-152) as a single final block of 24 bytes.
    function coldkeyOf(address account) public view returns (bytes32) {
        bytes memory input = abi.encodePacked(
            uint32(12),
            // The BLAKE2b IV with h[0] ^= 0x01010020 (no key, 32-byte digest), as eight little-endian words.
            hex"28c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b",
            bytes4("evm:"),
            account,
            bytes32(0),
            bytes32(0),
            bytes32(0),
            bytes8(0),
            // Offset counter t = 24 bytes, little-endian, then the final-block flag.
            bytes8(0x1800000000000000),
            bytes8(0),
            bytes1(0x01)
        );
        (bool ok, bytes memory output) = address(0x09).staticcall(input);
        require(ok && output.length == 64, "blake2f failed");
        return bytes32(output);
    }

    // ---------------------------------------------------------------- internals

    function addStake(bytes32 coldkey, bytes32 hotkey, uint64 amountRao, uint16 netuid) internal {
        if (amountRao == 0) revert ZeroAmount();
        if (hotkeyOwner[hotkey] == bytes32(0)) revert UnknownHotkey(hotkey);
        Pool storage subnet = requireSubnet(netuid);
        requireValue(amountRao);
        uint64 bought = uint64(taoToAlpha(subnet, amountRao));
        subnet.taoIn += amountRao;
        if (subnet.mechanism != 0) subnet.alphaIn -= bought;
        subnet.alphaOut += bought;
        subnet.volume += amountRao;
        credit(hotkey, coldkey, netuid, bought);
    }

    /// Returns the rao the sold alpha fetched; the caller pays it out.
    function removeStake(bytes32 coldkey, bytes32 hotkey, uint64 amountAlpha, uint16 netuid) internal returns (uint64 tao) {
        if (amountAlpha == 0) revert ZeroAmount();
        Pool storage subnet = requireSubnet(netuid);
        uint64 held = alpha[hotkey][coldkey][netuid];
        if (held < amountAlpha) revert NotEnoughStake(held, amountAlpha);
        tao = uint64(alphaToTao(subnet, amountAlpha));
        debit(hotkey, coldkey, netuid, amountAlpha);
        subnet.taoIn -= tao;
        if (subnet.mechanism != 0) subnet.alphaIn += amountAlpha;
        subnet.alphaOut -= amountAlpha;
        subnet.volume += tao;
    }

    function creditValidators(uint16 netuid, uint64 amount) internal {
        Neuron[] storage list = neurons[netuid];
        uint256 permitted;
        for (uint256 i = 0; i < list.length; i++) if (list[i].validatorPermit) permitted++;
        if (permitted == 0 || amount == 0) return;
        uint64 share = uint64(amount / permitted);
        uint64 rest = uint64(amount - share * permitted);
        for (uint256 i = 0; i < list.length; i++) {
            if (!list[i].validatorPermit) continue;
            uint64 credited = share + rest;
            rest = 0;
            list[i].emission = credited;
            credit(list[i].hotkey, list[i].coldkey, netuid, credited);
        }
        pools[netuid].alphaOut += amount;
    }

    function credit(bytes32 hotkey, bytes32 coldkey, uint16 netuid, uint64 amount) internal {
        if (amount == 0) return;
        if (alpha[hotkey][coldkey][netuid] == 0) {
            stakers[hotkey][netuid].push(coldkey);
            stakerSlot[hotkey][netuid][coldkey] = stakers[hotkey][netuid].length;
            positions[coldkey].push(PositionKey(hotkey, netuid));
            positionSlot[coldkey][hotkey][netuid] = positions[coldkey].length;
        }
        alpha[hotkey][coldkey][netuid] += amount;
        hotkeyAlpha[hotkey][netuid] += amount;
    }

    function debit(bytes32 hotkey, bytes32 coldkey, uint16 netuid, uint64 amount) internal {
        alpha[hotkey][coldkey][netuid] -= amount;
        hotkeyAlpha[hotkey][netuid] -= amount;
        if (alpha[hotkey][coldkey][netuid] != 0) return;
        // Swap-and-pop keeps both indexes dense, so enumeration reads only live positions.
        bytes32[] storage list = stakers[hotkey][netuid];
        uint256 slot = stakerSlot[hotkey][netuid][coldkey];
        bytes32 moved = list[list.length - 1];
        list[slot - 1] = moved;
        stakerSlot[hotkey][netuid][moved] = slot;
        list.pop();
        delete stakerSlot[hotkey][netuid][coldkey];

        PositionKey[] storage owned = positions[coldkey];
        uint256 index = positionSlot[coldkey][hotkey][netuid];
        PositionKey memory last = owned[owned.length - 1];
        owned[index - 1] = last;
        positionSlot[coldkey][last.hotkey][last.netuid] = index;
        owned.pop();
        delete positionSlot[coldkey][hotkey][netuid];
    }

    /// Spot price in TAO per alpha, truncated to 9 decimals: 1 on a stable subnet, 0 with no alpha reserve.
    function price9(Pool storage subnet) internal view returns (uint64) {
        if (subnet.mechanism == 0) return 1e9;
        if (subnet.alphaIn == 0) return 0;
        return uint64((uint256(subnet.taoIn) * 1e9) / subnet.alphaIn);
    }

    function taoToAlpha(Pool storage subnet, uint256 tao) internal view returns (uint256) {
        if (subnet.mechanism == 0) return tao;
        return (uint256(subnet.alphaIn) * tao) / (uint256(subnet.taoIn) + tao);
    }

    function alphaToTao(Pool storage subnet, uint256 amount) internal view returns (uint256) {
        if (subnet.mechanism == 0) return amount;
        return (uint256(subnet.taoIn) * amount) / (uint256(subnet.alphaIn) + amount);
    }

    function requireSubnet(uint16 netuid) internal view returns (Pool storage subnet) {
        subnet = pools[netuid];
        if (!subnet.exists) revert UnknownSubnet(netuid);
    }

    function requireValue(uint256 rao) internal view {
        if (msg.value != rao * WEI_PER_RAO) revert WrongValue(rao * WEI_PER_RAO, msg.value);
    }

    function pay(address to, uint64 rao) internal {
        if (rao == 0) return;
        (bool ok,) = payable(to).call{value: uint256(rao) * WEI_PER_RAO}("");
        if (!ok) revert PaymentFailed();
    }

    function toU64(uint256 amount) internal pure returns (uint64) {
        if (amount > type(uint64).max) revert AmountTooLarge(amount);
        return uint64(amount);
    }

    function toNetuid(uint256 netuid) internal pure returns (uint16) {
        if (netuid > type(uint16).max) revert UnknownSubnet(type(uint16).max);
        return uint16(netuid);
    }
}
