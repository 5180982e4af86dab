// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title A Chainlink-style aggregator for the devnet's coin/USD price.
/// @notice Implements the reads of `AggregatorV2V3Interface` and emits its events, so a reader written
/// for Chainlink reads it unchanged: every `submit` opens and answers one round (`NewRound`, then
/// `AnswerUpdated`). Only the configured updater (the simulator) may submit.
contract PriceFeedAggregatorMock {
    error NotUpdater();
    error NonPositiveAnswer(int256 answer);

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);

    struct Round {
        int256 answer;
        uint64 startedAt;
        uint64 updatedAt;
    }

    uint8 public immutable decimals;
    address public immutable updater;
    string public description;
    uint256 public constant version = 4;

    uint80 internal latestRoundId;
    mapping(uint80 => Round) internal rounds;

    constructor(uint8 decimals_, string memory description_, address updater_, int256 initialAnswer) {
        decimals = decimals_;
        description = description_;
        updater = updater_;
        record(initialAnswer);
    }

    /// Publishes a new answer as the next round.
    function submit(int256 answer) external {
        if (msg.sender != updater) revert NotUpdater();
        record(answer);
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRoundId);
    }

    /// Reverts for a round that does not exist, with Chainlink's message.
    function getRoundData(uint80 _roundId)
        public
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round memory round = rounds[_roundId];
        require(round.updatedAt > 0, "No data present");
        return (_roundId, round.answer, round.startedAt, round.updatedAt, _roundId);
    }

    function latestAnswer() external view returns (int256) {
        return rounds[latestRoundId].answer;
    }

    function latestRound() external view returns (uint256) {
        return latestRoundId;
    }

    function latestTimestamp() external view returns (uint256) {
        return rounds[latestRoundId].updatedAt;
    }

    function record(int256 answer) internal {
        if (answer <= 0) revert NonPositiveAnswer(answer);
        uint80 roundId = latestRoundId + 1;
        latestRoundId = roundId;
        rounds[roundId] = Round(answer, uint64(block.timestamp), uint64(block.timestamp));
        emit NewRound(roundId, msg.sender, block.timestamp);
        emit AnswerUpdated(answer, roundId, block.timestamp);
    }
}
