"""Calling a Lambda function with a JSON event and reading its JSON answer, as the output and the
preprocessor do (synchronously: ``RequestResponse``)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from overjoin.aws.connection import AwsError, Connection, worded

__all__ = ["MAX_REQUEST_BYTES", "Invocation", "backoff", "function_name", "invoke"]

#: Lambda's limit on a synchronous request's payload is 6 MB; batches stay under this, leaving room
#: for the event's own fields.
MAX_REQUEST_BYTES = 5_500_000


@dataclass(frozen=True)
class Invocation:
    """What one call answered: the decoded JSON body, or why it is not an answer."""

    body: Any
    failure: str | None


def function_name(text: str) -> str:
    """The name for messages: the function of an ARN (with its version or alias), else the text."""
    if text.startswith("arn:"):
        parts = text.split(":")
        return ":".join(parts[6:]) if len(parts) > 6 else text
    return text


def invoke(connection: Connection, client: Any, function: str, event: dict[str, Any], role: str) -> Invocation:
    """One synchronous call of `function` with `event`. A function error (an exception in the
    function, a timeout) or an answer that is not JSON is a failure to retry, not an error; an
    error of the call itself (no such function, refused credentials, the endpoint down) raises."""
    try:
        resp = client.invoke(
            FunctionName=function, InvocationType="RequestResponse", Payload=json.dumps(event).encode()
        )
    except Exception as error:
        code = getattr(error, "response", {}).get("Error", {}).get("Code", "")
        if code in (
            "TooManyRequestsException",
            "ServiceException",
            "EC2ThrottledException",
            "ResourceNotReadyException",
        ):
            return Invocation(None, f"{code}: {error}")
        raise worded(
            connection, f"{role} function {function_name(function)!r}", error, "invoking it", "function"
        ) from error
    payload = resp.get("Payload")
    raw = payload.read() if payload is not None else b""
    if resp.get("FunctionError"):
        detail = raw.decode("utf-8", "replace")[:300]
        return Invocation(None, f"the function failed ({resp['FunctionError']}): {detail}")
    try:
        return Invocation(json.loads(raw or b"null"), None)
    except ValueError:
        return Invocation(None, f"its answer is not JSON: {raw[:200]!r}")


def backoff(attempt: int) -> None:
    """Waits before attempt `attempt + 1`: 0.1 s, doubling, at most 5 s."""
    time.sleep(min(0.05 * 2**attempt, 5.0))


def give_up(role: str, function: str, attempts: int, why: str) -> AwsError:
    return AwsError(
        f"lambda: {role} function {function_name(function)!r}: still failing after {attempts} attempts: {why} "
        f"(KDA retried such a batch until it succeeded; the pump is FAILED instead: fix the function, then "
        f"ALTER PUMP ... START sends the batch again)"
    )
