"""Schemathesis hooks for the platform's OpenAPI document (test/e2e/src/openApiFuzz.test.ts).

Everything here reads the document itself; nothing narrows what the fuzzer tries:

- Generators for the document's custom string formats, whose rules a pattern cannot state:
  `evm-address` (mixed case must be the EIP-55 checksum), `bittensor-account` (an SS58 checksum,
  or an EVM address as above) and `siwe-message` (the message's address EIP-55 checksummed).
  Each generator draws values of every form the format allows.
- Positive cases that break an operation's `x-parameter-rules` (rules between query parameters,
  which OpenAPI cannot state per parameter) are not generated as positive: the server refuses
  them, as the document says.
- A positive case refused with a code the document lists in `x-value-refusals` is not a failure
  of positive-data acceptance: those codes judge a well-formed value against what only the server
  knows (a cursor it issued, its chains, the clock, a signature). Any other 400 to a
  document-valid request still fails the run.
"""

import hashlib
import re
from datetime import datetime

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData
from Crypto.Hash import keccak
from hypothesis import strategies as st

document = {"value_refusals": set(), "siwe_pattern": None}


@schemathesis.hook
def after_load_schema(context, schema):
    raw = schema.raw_schema
    document["value_refusals"] = set(raw.get("x-value-refusals", []))
    accept = raw["paths"]["/intents/v1/tc/accept"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    document["siwe_pattern"] = accept["properties"]["message"]["pattern"]


# --- formats ---------------------------------------------------------------------------------

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58(data: bytes) -> str:
    number = int.from_bytes(data, "big")
    text = ""
    while number:
        number, digit = divmod(number, 58)
        text = B58[digit] + text
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + text


def ss58(public_key: bytes, prefix: int = 42) -> str:
    payload = bytes([prefix]) + public_key
    return base58(payload + hashlib.blake2b(b"SS58PRE" + payload, digest_size=64).digest()[:2])


def eip55(address: bytes) -> str:
    lower = address.hex()
    digest = keccak.new(digest_bits=256, data=lower.encode()).hexdigest()
    return "0x" + "".join(c.upper() if int(digest[i], 16) >= 8 else c for i, c in enumerate(lower))


evm_addresses = st.tuples(st.binary(min_size=20, max_size=20), st.sampled_from(["lower", "upper", "checksummed"])).map(
    lambda drawn: "0x" + drawn[0].hex() if drawn[1] == "lower" else "0x" + drawn[0].hex().upper() if drawn[1] == "upper" else eip55(drawn[0])
)
public_keys = st.tuples(st.binary(min_size=32, max_size=32), st.booleans()).map(
    lambda drawn: "0x" + (drawn[0].hex().upper() if drawn[1] else drawn[0].hex())
)
bittensor_accounts = st.one_of(st.binary(min_size=32, max_size=32).map(ss58), public_keys, evm_addresses)

SIWE_ADDRESS_LINE = re.compile(r"(wants you to sign in with your Ethereum account:\n)(0x[0-9a-fA-F]{40})")


def siwe_with_checksum(message: str) -> str:
    return SIWE_ADDRESS_LINE.sub(lambda match: match.group(1) + eip55(bytes.fromhex(match.group(2)[2:])), message, count=1)


siwe_messages = st.deferred(lambda: st.from_regex(document["siwe_pattern"], fullmatch=True).map(siwe_with_checksum))

schemathesis.openapi.format("evm-address", evm_addresses)
schemathesis.openapi.format("bittensor-account", bittensor_accounts)
schemathesis.openapi.format("siwe-message", siwe_messages)


# --- rules between parameters ----------------------------------------------------------------


def instant(value):
    """An RFC 3339 date-time or unix seconds, as the server reads it (a leap second is the next second)."""
    text = str(value)
    if re.fullmatch(r"\d{1,11}", text):
        return float(text)
    leap = re.search(r":60(?=[.Zz+-])", text)
    if leap:
        text = text[: leap.start()] + ":59" + text[leap.end() :]
    text = re.sub(r"\.(\d{6})\d+", r".\1", text.replace("t", "T").replace("z", "Z"))
    # Aware datetimes count seconds from the epoch for any year Python has (1 to 9999).
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() + (1 if leap else 0)


def comparable(kind, value):
    return instant(value) if kind == "instant" else int(str(value))


def breaks(rule, query) -> bool:
    if rule["kind"] == "exclusive":
        return sum(1 for group in rule["groups"] if any(query.get(name) is not None for name in group)) > 1
    if rule["kind"] in ("onlyWhen", "notWhen"):
        if all(query.get(name) is None for name in rule["parameters"]):
            return False
        value = query.get(rule["parameter"])
        return (value is not None and str(value) in rule["values"]) != (rule["kind"] == "onlyWhen")
    first, second = query.get(rule["first"]), query.get(rule["second"])
    if first is None or second is None:
        return False
    a, b = comparable(rule["compare"], first), comparable(rule["compare"], second)
    return a > b or (rule["strict"] and a == b)


@schemathesis.hook
def filter_case(context, case):
    if case.meta is None or not case.meta.generation.mode.is_positive or not isinstance(case.query, dict):
        return True
    # A value a rule cannot read is not this hook's to judge: the case goes to the server.
    return not breaks_parameter_rules(case)


# --- value refusals ----------------------------------------------------------------------------


def breaks_parameter_rules(case) -> bool:
    rules = case.operation.definition.raw.get("x-parameter-rules", [])
    try:
        return isinstance(case.query, dict) and any(breaks(rule, case.query) for rule in rules)
    except (TypeError, ValueError):
        return False


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if response is None or response.status_code != 400 or not isinstance(failure, RejectedPositiveData):
        return True
    # The examples and coverage phases build cases without filter_case: one that breaks a rule the
    # document states was not valid, and its refusal is right.
    if breaks_parameter_rules(case):
        return False
    try:
        code = response.json().get("code")
    except Exception:
        return True
    return code not in document["value_refusals"]
