"""Schemathesis's own check of event stream answers (ST108, response_schema_conformance), alone.

Reads {"document": <OpenAPI document>, "answers": [{"path": ..., "body": <text/event-stream text>}]}
on standard input and prints, as JSON, one result per answer: "ok", or the failures schemathesis
reports. The document is loaded (and so validated against the OpenAPI meta-schema) as the fuzz
loads it. test/e2e/src/streamEventsFuzz.test.ts runs it.
"""

import json
import sys

import requests
import schemathesis
from schemathesis.core.transport import Response
from schemathesis.specs.openapi.checks import response_schema_conformance


def check(schema, base_url, path, body):
    case = schema[path]["GET"].Case()
    request = requests.Request("GET", base_url + path).prepare()
    response = Response(
        200, {"content-type": ["text/event-stream; charset=utf-8"]}, body.encode(), request, 0.1, True
    )
    try:
        case.validate_response(response, checks=[response_schema_conformance])
        return "ok"
    except BaseException as error:  # a FailureGroup of the checks' failures
        failures = getattr(error, "exceptions", [error])
        return " | ".join(str(failure).splitlines()[0] for failure in failures)


def main():
    given = json.load(sys.stdin)
    document = given["document"]
    schema = schemathesis.openapi.from_dict(document)
    base_url = document["servers"][0]["url"]
    print(json.dumps([check(schema, base_url, answer["path"], answer["body"]) for answer in given["answers"]]))


if __name__ == "__main__":
    main()
