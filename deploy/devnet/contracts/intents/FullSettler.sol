// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {
    FillInstruction,
    GaslessCrossChainOrder,
    IDestinationSettler,
    IOriginSettler,
    OnchainCrossChainOrder,
    Output,
    ResolvedCrossChainOrder
} from "./ERC7683.sol";
import {safeTransferToken, safeTransferTokenFrom, sendNative} from "../utils/TokenTransfers.sol";

/// @notice What a user puts into `OnchainCrossChainOrder.orderData`, as `abi.encode(FullOrderParams)`.
/// Only the fields the user chooses: who the user is, which chain and settler this is, and the fill
/// deadline are taken from the transaction, so a client cannot get them wrong or lie about them.
/// Tokens and the recipient are `bytes32` like ERC-7683's `Output`; a zero token is the native coin.
struct FullOrderParams {
    uint256 nonce;
    uint256 destinationChainId;
    bytes32 inputToken;
    uint256 inputAmount;
    bytes32 outputToken;
    uint256 outputAmount;
    bytes32 recipient;
}

/// @notice The complete order. `abi.encode(FullOrderData)` is the `originData` of its fill instruction
/// and `keccak256` of it is the `orderId`, so the id binds the user, their nonce, both chains and both
/// settlers, and `fill` can check the data it is given against the id alone.
struct FullOrderData {
    address user;
    uint256 nonce;
    uint256 originChainId;
    address originSettler;
    uint256 destinationChainId;
    bytes32 destinationSettler;
    bytes32 inputToken;
    uint256 inputAmount;
    bytes32 outputToken;
    uint256 outputAmount;
    bytes32 recipient;
    uint32 fillDeadline;
}

/// @notice An order's state on one chain. The origin holds UNKNOWN → OPENED → SETTLED | REFUNDED; the
/// destination holds UNKNOWN → FILLED. "Expired" is not stored: it is derived by the mirror from the
/// destination clock, as Across and BootNode do.
enum OrderStatus {
    UNKNOWN,
    OPENED,
    FILLED,
    SETTLED,
    REFUNDED
}

/// @title FullSettler
/// @notice ERC-7683 origin and destination settler for the devnet, one contract serving both roles.
/// Users `open` orders on the origin, which escrows their input; a filler `fill`s on the destination
/// before `fillDeadline` (destination clock), paying the recipient; a trusted oracle that watched the
/// `Filled` event then `settle`s on the origin, paying the escrow to the filler; if nobody fills, anyone
/// may `refund` the user once `fillDeadline + REFUND_GRACE` has passed on the origin.
/// @dev Refund and settle race first-come: a fill not attested within the grace period could be refunded
/// and filled both. The grace must therefore exceed the oracle's latency; a production settler would
/// prove the absence of a fill from the destination instead (BootNode's destination-requested refund).
contract FullSettler is IOriginSettler, IDestinationSettler {
    /// @notice The EIP-712 typehash of `FullOrderParams`, the type `orderData` is encoded with.
    bytes32 public constant ORDER_DATA_TYPE = keccak256(
        "FullOrderParams(uint256 nonce,uint256 destinationChainId,bytes32 inputToken,uint256 inputAmount,bytes32 outputToken,uint256 outputAmount,bytes32 recipient)"
    );

    /// @dev `abi.encode` of a struct of seven static words; anything else cannot be a `FullOrderParams`.
    uint256 private constant ORDER_DATA_LENGTH = 7 * 32;
    /// @dev Likewise for `FullOrderData`, twelve static words.
    uint256 private constant ORIGIN_DATA_LENGTH = 12 * 32;

    /// @notice Seconds after `fillDeadline` before a refund is allowed. Fixed at deployment so that an
    /// order's refund time cannot move after it was opened; it covers oracle latency and clock skew.
    uint256 public immutable REFUND_GRACE;

    /// @notice What the origin keeps per order: enough to settle or refund without the full order data.
    struct Escrow {
        address user;
        uint32 fillDeadline;
        OrderStatus status;
        address inputToken;
        uint256 inputAmount;
    }

    address public owner;
    address public oracle;
    /// @notice An order's fill deadline must be at least this many seconds after it is opened, so a filler has time.
    uint32 public minFillWindow;
    /// @notice ...and at most this many, so escrow is not locked for an unbounded time.
    uint32 public maxFillBuffer;
    /// @notice The FullSettler on another chain, or zero. A peer both allows opening orders to that chain
    /// and lets this settler accept fills of orders opened there; an unknown chain would strand funds.
    mapping(uint256 chainId => bytes32 settler) public peer;
    mapping(address user => mapping(uint256 nonce => bool)) public nonceUsed;
    /// @notice Origin side: escrow per order id.
    mapping(bytes32 orderId => Escrow) public escrows;
    /// @notice Destination side: who filled the order, zero if nobody.
    mapping(bytes32 orderId => address filler) public filledBy;

    /// @notice Destination: the order was filled and its output paid to `recipient`. The oracle pays the
    /// origin escrow to `repaymentAddress` (from `fillerData`; the filler itself when empty).
    event Filled(
        bytes32 indexed orderId,
        address indexed filler,
        uint256 originChainId,
        bytes32 recipient,
        bytes32 outputToken,
        uint256 outputAmount,
        bytes32 repaymentAddress
    );
    /// @notice Origin: the escrow was paid to `filler` on the oracle's word that the order was filled.
    event Settled(bytes32 indexed orderId, address indexed filler, bytes32 inputToken, uint256 inputAmount);
    /// @notice Origin: the escrow went back to `user` after the fill deadline and grace passed.
    event Refunded(bytes32 indexed orderId, address indexed user, bytes32 inputToken, uint256 inputAmount);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event OracleSet(address indexed oracle);
    event PeerSet(uint256 indexed chainId, bytes32 settler);
    event FillDeadlineBoundsSet(uint32 minFillWindow, uint32 maxFillBuffer);

    error NotOwner(address caller);
    error NotOracle(address caller);
    error ZeroAddress();
    error InvalidFillDeadlineBounds(uint32 minFillWindow, uint32 maxFillBuffer);
    error InvalidRefundGrace();
    /// @notice A peer for this very chain, or for chain id 0; an order must cross chains.
    error InvalidPeer(uint256 chainId);
    /// @notice Gasless orders (`openFor`, `resolveFor`) are not offered; see `openFor`.
    error NotSupported();
    error WrongOrderDataType(bytes32 expected, bytes32 actual);
    error InvalidOrderData(uint256 length);
    error UnsupportedRoute(uint256 destinationChainId);
    /// @notice A `bytes32` that must hold an EVM address has bits above the low 160.
    error NotAnEvmAddress(bytes32 value);
    error ZeroAmount();
    error ZeroRecipient();
    error FillDeadlineOutOfBounds(uint32 fillDeadline, uint256 earliest, uint256 latest);
    error NonceUsed(address user, uint256 nonce);
    error InsufficientValue(uint256 required, uint256 provided);
    /// @notice More native coin than the order moves, or any with an ERC-20 order; it would be stuck here.
    error ExcessValue(uint256 required, uint256 provided);
    error OrderIdMismatch(bytes32 orderId, bytes32 computed);
    error WrongDestinationChain(uint256 destinationChainId);
    error WrongDestinationSettler(bytes32 destinationSettler);
    error UnknownOriginSettler(uint256 originChainId, address originSettler);
    error FillDeadlinePassed(uint32 fillDeadline, uint256 timestamp);
    error AlreadyFilled(bytes32 orderId, address filler);
    error InvalidFillerData();
    error OrderNotOpen(bytes32 orderId, OrderStatus status);
    error NotRefundableYet(bytes32 orderId, uint256 refundableAt);

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    /// @param oracle_ The account allowed to `settle`.
    /// @param minFillWindow_ See `minFillWindow`.
    /// @param maxFillBuffer_ See `maxFillBuffer`.
    /// @param refundGrace_ See `REFUND_GRACE`; at least one second, so a refund can never happen in the
    /// same second a fill is still allowed (`fill` accepts `block.timestamp == fillDeadline`).
    constructor(address oracle_, uint32 minFillWindow_, uint32 maxFillBuffer_, uint32 refundGrace_) {
        if (oracle_ == address(0)) revert ZeroAddress();
        if (refundGrace_ == 0) revert InvalidRefundGrace();
        REFUND_GRACE = refundGrace_;
        owner = msg.sender;
        emit OwnershipTransferred(address(0), msg.sender);
        oracle = oracle_;
        emit OracleSet(oracle_);
        _setFillDeadlineBounds(minFillWindow_, maxFillBuffer_);
    }

    // ---------------------------------------------------------------------------------------------
    // Origin: open, settle, refund
    // ---------------------------------------------------------------------------------------------

    /// @notice Not offered: a gasless order needs the user's signature and a way to pull their funds
    /// (Permit2), and the product opens intents only with the user's own transaction.
    function openFor(GaslessCrossChainOrder calldata, bytes calldata, bytes calldata) external payable {
        revert NotSupported();
    }

    /// @notice Not offered; see `openFor`.
    function resolveFor(GaslessCrossChainOrder calldata, bytes calldata)
        external
        pure
        returns (ResolvedCrossChainOrder memory)
    {
        revert NotSupported();
    }

    /// @notice The order `open` would create for `msg.sender`, including its `orderId`; call it with
    /// `from = user` to learn the id before sending. Checks the order's type and route but not its
    /// deadline, nonce or funds, which `open` checks at the time it runs.
    function resolve(OnchainCrossChainOrder calldata order) external view returns (ResolvedCrossChainOrder memory) {
        (ResolvedCrossChainOrder memory resolved,) = _resolve(order, msg.sender);
        return resolved;
    }

    /// @notice Opens an order: escrows `inputAmount` of `inputToken` from `msg.sender` (native coin as
    /// `msg.value`, an ERC-20 by `transferFrom`, which needs an allowance to this contract first).
    function open(OnchainCrossChainOrder calldata order) external payable {
        (ResolvedCrossChainOrder memory resolved, FullOrderData memory data) = _resolve(order, msg.sender);
        _checkFillDeadline(order.fillDeadline);
        address inputToken = _toAddress(data.inputToken);
        // Validated here although only used on the destination: an order no filler can execute would
        // only ever be refunded, after locking the user's funds until the deadline.
        _toAddress(data.outputToken);
        if (data.recipient == bytes32(0)) revert ZeroRecipient();
        _toAddress(data.recipient);
        if (data.inputAmount == 0 || data.outputAmount == 0) revert ZeroAmount();
        // The nonce makes each (user, nonce) one order; as the id hashes both, it also keeps ids unique.
        if (nonceUsed[msg.sender][data.nonce]) revert NonceUsed(msg.sender, data.nonce);

        nonceUsed[msg.sender][data.nonce] = true;
        escrows[resolved.orderId] = Escrow({
            user: msg.sender,
            fillDeadline: order.fillDeadline,
            status: OrderStatus.OPENED,
            inputToken: inputToken,
            inputAmount: data.inputAmount
        });
        emit Open(resolved.orderId, resolved);

        if (inputToken == address(0)) {
            _requireValue(data.inputAmount);
        } else {
            _requireValue(0);
            safeTransferTokenFrom(inputToken, msg.sender, address(this), data.inputAmount);
        }
    }

    /// @notice Pays an open order's escrow to `filler`, on the oracle's attestation that the order was
    /// filled on its destination (the devnet oracle watches `Filled`; production would verify a proof).
    function settle(bytes32 orderId, address filler) external {
        if (msg.sender != oracle) revert NotOracle(msg.sender);
        if (filler == address(0)) revert ZeroAddress();
        Escrow storage escrow = escrows[orderId];
        if (escrow.status != OrderStatus.OPENED) revert OrderNotOpen(orderId, escrow.status);
        escrow.status = OrderStatus.SETTLED;
        emit Settled(orderId, filler, _toBytes32(escrow.inputToken), escrow.inputAmount);
        _pay(escrow.inputToken, filler, escrow.inputAmount);
    }

    /// @notice Returns an open order's escrow to its user; anyone may call it from `refundableAt` on.
    function refund(bytes32 orderId) external {
        Escrow storage escrow = escrows[orderId];
        if (escrow.status != OrderStatus.OPENED) revert OrderNotOpen(orderId, escrow.status);
        uint256 refundable = uint256(escrow.fillDeadline) + REFUND_GRACE;
        if (block.timestamp < refundable) revert NotRefundableYet(orderId, refundable);
        escrow.status = OrderStatus.REFUNDED;
        emit Refunded(orderId, escrow.user, _toBytes32(escrow.inputToken), escrow.inputAmount);
        _pay(escrow.inputToken, escrow.user, escrow.inputAmount);
    }

    /// @notice The first origin timestamp at which `refund` succeeds for an order, 0 for an unknown one.
    function refundableAt(bytes32 orderId) external view returns (uint256) {
        Escrow storage escrow = escrows[orderId];
        if (escrow.status == OrderStatus.UNKNOWN) return 0;
        return uint256(escrow.fillDeadline) + REFUND_GRACE;
    }

    // ---------------------------------------------------------------------------------------------
    // Destination: fill
    // ---------------------------------------------------------------------------------------------

    /// @notice Fills an order: pays `outputAmount` of `outputToken` from `msg.sender` to the recipient
    /// (native coin as `msg.value`, an ERC-20 by `transferFrom`). `originData` is the order's fill
    /// instruction data; `fillerData` is empty or `abi.encode(bytes32 repaymentAddress)`, the origin
    /// address the escrow should be paid to.
    function fill(bytes32 orderId, bytes calldata originData, bytes calldata fillerData) external payable {
        bytes32 computed = keccak256(originData);
        if (computed != orderId) revert OrderIdMismatch(orderId, computed);
        // Anyone can pick an orderId that hashes arbitrary bytes; refuse those with a reason too.
        if (originData.length != ORIGIN_DATA_LENGTH) revert InvalidOrderData(originData.length);
        FullOrderData memory data = abi.decode(originData, (FullOrderData));
        if (data.destinationChainId != block.chainid) revert WrongDestinationChain(data.destinationChainId);
        if (data.destinationSettler != _toBytes32(address(this))) {
            revert WrongDestinationSettler(data.destinationSettler);
        }
        // Only orders from a known settler can ever be settled, so a fill of anything else would pay
        // the recipient with no way for the filler to be repaid.
        if (peer[data.originChainId] != _toBytes32(data.originSettler)) {
            revert UnknownOriginSettler(data.originChainId, data.originSettler);
        }
        // The destination clock decides, and a fill at the deadline itself is still in time (Across).
        if (block.timestamp > data.fillDeadline) revert FillDeadlinePassed(data.fillDeadline, block.timestamp);
        address previous = filledBy[orderId];
        if (previous != address(0)) revert AlreadyFilled(orderId, previous);
        bytes32 repaymentAddress = _repaymentAddress(fillerData);
        address outputToken = _toAddress(data.outputToken);
        address recipient = _toAddress(data.recipient);

        filledBy[orderId] = msg.sender;
        emit Filled(
            orderId,
            msg.sender,
            data.originChainId,
            data.recipient,
            data.outputToken,
            data.outputAmount,
            repaymentAddress
        );

        if (outputToken == address(0)) {
            _requireValue(data.outputAmount);
            sendNative(recipient, data.outputAmount);
        } else {
            _requireValue(0);
            safeTransferTokenFrom(outputToken, msg.sender, recipient, data.outputAmount);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Both chains
    // ---------------------------------------------------------------------------------------------

    /// @notice OPENED, SETTLED or REFUNDED on the origin; FILLED on the destination; UNKNOWN otherwise.
    /// An order never has both records on one chain, because a settler is never its own chain's peer.
    function orderStatus(bytes32 orderId) external view returns (OrderStatus) {
        OrderStatus status = escrows[orderId].status;
        if (status != OrderStatus.UNKNOWN) return status;
        return filledBy[orderId] == address(0) ? OrderStatus.UNKNOWN : OrderStatus.FILLED;
    }

    // ---------------------------------------------------------------------------------------------
    // Owner
    // ---------------------------------------------------------------------------------------------

    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    function setOracle(address newOracle) external onlyOwner {
        if (newOracle == address(0)) revert ZeroAddress();
        oracle = newOracle;
        emit OracleSet(newOracle);
    }

    /// @notice Enables the route to and from `chainId` (settler non-zero) or disables it (zero). Orders
    /// already open keep their recorded destination settler.
    function setPeer(uint256 chainId, bytes32 settler) external onlyOwner {
        if (chainId == 0 || chainId == block.chainid) revert InvalidPeer(chainId);
        peer[chainId] = settler;
        emit PeerSet(chainId, settler);
    }

    /// @notice Applies to orders opened from now on; open orders keep their deadlines.
    function setFillDeadlineBounds(uint32 minFillWindow_, uint32 maxFillBuffer_) external onlyOwner {
        _setFillDeadlineBounds(minFillWindow_, maxFillBuffer_);
    }

    // ---------------------------------------------------------------------------------------------
    // Internal
    // ---------------------------------------------------------------------------------------------

    function _resolve(OnchainCrossChainOrder calldata order, address user)
        internal
        view
        returns (ResolvedCrossChainOrder memory resolved, FullOrderData memory data)
    {
        if (order.orderDataType != ORDER_DATA_TYPE) revert WrongOrderDataType(ORDER_DATA_TYPE, order.orderDataType);
        // abi.decode would revert without a reason on short data; say what is wrong instead.
        if (order.orderData.length != ORDER_DATA_LENGTH) revert InvalidOrderData(order.orderData.length);
        FullOrderParams memory params = abi.decode(order.orderData, (FullOrderParams));
        bytes32 destinationSettler = peer[params.destinationChainId];
        if (destinationSettler == bytes32(0)) revert UnsupportedRoute(params.destinationChainId);

        // Field by field: a 12-member struct literal would need more stack slots than the EVM reaches.
        data.user = user;
        data.nonce = params.nonce;
        data.originChainId = block.chainid;
        data.originSettler = address(this);
        data.destinationChainId = params.destinationChainId;
        data.destinationSettler = destinationSettler;
        data.inputToken = params.inputToken;
        data.inputAmount = params.inputAmount;
        data.outputToken = params.outputToken;
        data.outputAmount = params.outputAmount;
        data.recipient = params.recipient;
        data.fillDeadline = order.fillDeadline;
        bytes memory originData = abi.encode(data);

        resolved.user = user;
        resolved.originChainId = block.chainid;
        // The user opens the order with their own transaction, so there is no separate open deadline.
        resolved.openDeadline = type(uint32).max;
        resolved.fillDeadline = order.fillDeadline;
        resolved.orderId = keccak256(originData);
        resolved.maxSpent = new Output[](1);
        resolved.maxSpent[0] = Output({
            token: params.outputToken,
            amount: params.outputAmount,
            recipient: params.recipient,
            chainId: params.destinationChainId
        });
        // Recipient zero: the filler who will receive the input is not known when the order opens.
        resolved.minReceived = new Output[](1);
        resolved.minReceived[0] = Output({
            token: params.inputToken,
            amount: params.inputAmount,
            recipient: bytes32(0),
            chainId: block.chainid
        });
        resolved.fillInstructions = new FillInstruction[](1);
        resolved.fillInstructions[0] = FillInstruction({
            destinationChainId: params.destinationChainId,
            destinationSettler: destinationSettler,
            originData: originData
        });
    }

    function _checkFillDeadline(uint32 fillDeadline) internal view {
        uint256 earliest = block.timestamp + minFillWindow;
        uint256 latest = block.timestamp + maxFillBuffer;
        if (fillDeadline < earliest || fillDeadline > latest) {
            revert FillDeadlineOutOfBounds(fillDeadline, earliest, latest);
        }
    }

    function _setFillDeadlineBounds(uint32 minFillWindow_, uint32 maxFillBuffer_) internal {
        if (maxFillBuffer_ == 0 || minFillWindow_ > maxFillBuffer_) {
            revert InvalidFillDeadlineBounds(minFillWindow_, maxFillBuffer_);
        }
        minFillWindow = minFillWindow_;
        maxFillBuffer = maxFillBuffer_;
        emit FillDeadlineBoundsSet(minFillWindow_, maxFillBuffer_);
    }

    /// @dev Exactly the amount: less cannot pay the order, and more would be stuck in this contract.
    function _requireValue(uint256 required) internal view {
        if (msg.value < required) revert InsufficientValue(required, msg.value);
        if (msg.value > required) revert ExcessValue(required, msg.value);
    }

    function _repaymentAddress(bytes calldata fillerData) internal view returns (bytes32 repaymentAddress) {
        if (fillerData.length == 0) return _toBytes32(msg.sender);
        if (fillerData.length != 32) revert InvalidFillerData();
        repaymentAddress = abi.decode(fillerData, (bytes32));
        // The origin pays an EVM address; a zero one would burn the filler's repayment.
        if (repaymentAddress == bytes32(0)) revert InvalidFillerData();
        _toAddress(repaymentAddress);
    }

    function _pay(address token, address to, uint256 amount) internal {
        if (token == address(0)) sendNative(to, amount);
        else safeTransferToken(token, to, amount);
    }

    function _toAddress(bytes32 value) internal pure returns (address) {
        if (uint256(value) >> 160 != 0) revert NotAnEvmAddress(value);
        return address(uint160(uint256(value)));
    }

    function _toBytes32(address value) internal pure returns (bytes32) {
        return bytes32(uint256(uint160(value)));
    }
}
