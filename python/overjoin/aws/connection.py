"""How a data source reaches an AWS service: region, endpoint, credentials, timeouts, and errors
worded for the user.

Everything follows boto3's own rules, so a server started with the variables boto3 users set
reaches the same place with no option in the SQL:

* **credentials** from the options ``aws_access_key_id``/``aws_secret_access_key``/``aws_session_token``,
  else boto3's chain (environment, profile, instance or container role);
* **endpoint** from the option ``endpoint``, else botocore's configured endpoints:
  ``AWS_ENDPOINT_URL_<SERVICE>`` (``AWS_ENDPOINT_URL_KINESIS``, ``_FIREHOSE``, ``_LAMBDA``, ``_S3``),
  ``AWS_ENDPOINT_URL``, the profile's ``endpoint_url`` (unless ``AWS_IGNORE_CONFIGURED_ENDPOINT_URLS``);
* **region** from the option ``region``, else the resource's ARN, else ``AWS_REGION`` /
  ``AWS_DEFAULT_REGION`` / the profile's, else ``us-east-1``.

Writers run on executors, which on a cluster may have neither the server's environment nor its
profile: :meth:`Connection.frozen` resolves the endpoint and credentials where the write is
planned (the driver), so that the executors use what the server uses.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["AwsError", "Connection", "arn_parts", "options_without", "worded"]

#: The options every AWS data source takes, with what they mean (for messages listing them).
CONNECTION_OPTIONS = {
    "region": "the AWS region (default: the resource's ARN, AWS_REGION / AWS_DEFAULT_REGION, the profile's, "
    "else us-east-1)",
    "endpoint": "the endpoint URL (default: AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL, the profile's, else AWS's)",
    "aws_access_key_id": "credentials (default: boto3's chain: environment, profile, instance role)",
    "aws_secret_access_key": "credentials",
    "aws_session_token": "credentials",
    "connect_timeout": "seconds to wait for the endpoint to accept a connection (default 5)",
}

_CREDENTIAL_KEYS = ("aws_access_key_id", "aws_secret_access_key", "aws_session_token")


class AwsError(ValueError):
    """A problem with the options or the AWS resource, worded for the user (``<service>:`` prefix)."""


def options_without(options: Mapping[str, str]) -> dict[str, str]:
    """The options in lower case, without those Spark or overjoin add to every source."""
    out = {k.lower(): v for k, v in options.items()}
    for k in list(out):
        if k == "path" or k.startswith("overjoin."):
            out.pop(k)
    return out


def arn_parts(text: str) -> dict[str, str] | None:
    """The parts of an ARN (``arn:partition:service:region:account:resource``), or None."""
    parts = text.split(":", 5)
    if len(parts) < 6 or parts[0] != "arn":
        return None
    return {"partition": parts[1], "service": parts[2], "region": parts[3], "account": parts[4], "resource": parts[5]}


def number(service: str, opts: Mapping[str, str], key: str, default: str) -> float:
    """A positive number option."""
    text = opts.get(key, default)
    try:
        value = float(text)
    except ValueError:
        raise AwsError(f"{service}: option {key} must be a number, not {text!r}") from None
    if value <= 0:
        raise AwsError(f"{service}: option {key} must be positive, not {text!r}")
    return value


@dataclass(frozen=True)
class Connection:
    """Where and as whom one AWS service is reached."""

    service: str
    region: str
    endpoint: str | None
    credentials: Mapping[str, str]
    connect_timeout: float

    @staticmethod
    def of(service: str, opts: Mapping[str, str], arn: str | None = None) -> Connection:
        """The connection the options (lower-cased) describe; `arn` is the resource's, if it is one."""
        region = opts.get("region") or ""
        if not region and arn:
            parts = arn_parts(arn)
            region = parts["region"] if parts else ""
        if not region:
            region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or _profile_region() or ""
        creds = {k: opts[k] for k in _CREDENTIAL_KEYS if opts.get(k)}
        return Connection(
            service=service,
            region=region or "us-east-1",
            endpoint=opts.get("endpoint") or None,
            credentials=creds,
            connect_timeout=number(service, opts, "connect_timeout", "5"),
        )

    def client(self, attempts: int = 5, read_timeout: float = 30) -> Any:
        """A boto3 client of the service (botocore's retries: standard mode, `attempts` in all)."""
        import boto3
        from botocore.config import Config

        config = Config(
            connect_timeout=self.connect_timeout,
            read_timeout=read_timeout,
            retries={"max_attempts": attempts, "mode": "standard"},
        )
        return boto3.client(
            self.service, region_name=self.region, endpoint_url=self.endpoint, config=config, **self.credentials
        )

    def frozen(self) -> Connection:
        """This connection with the endpoint and credentials boto3 resolves here (the server), for
        writers that run on executors: a temporary role's credentials are fresh for each write."""
        out = self
        if out.endpoint is None:
            try:
                url = self.client(attempts=1).meta.endpoint_url
            except Exception:  # no usable configuration here: the executors look for themselves
                url = None
            if url:
                out = dataclasses.replace(out, endpoint=url)
        if not out.credentials:
            import boto3

            try:
                found = boto3.Session(region_name=self.region).get_credentials()
            except Exception:
                found = None
            if found is not None:
                frozen = found.get_frozen_credentials()
                creds = {"aws_access_key_id": frozen.access_key, "aws_secret_access_key": frozen.secret_key}
                if frozen.token:
                    creds["aws_session_token"] = frozen.token
                out = dataclasses.replace(out, credentials=creds)
        return out

    def where(self) -> str:
        """``(region at endpoint)`` for messages."""
        at = f" at {self.endpoint}" if self.endpoint else ""
        return f"({self.region}{at})"


def _profile_region() -> str | None:
    try:
        import boto3

        return boto3.Session().region_name
    except Exception:
        return None


#: Error codes of refused credentials (each service's, and the generic AWS ones).
_CREDENTIAL_CODES = {
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "IncompleteSignatureException",
    "MissingAuthenticationTokenException",
    "ExpiredTokenException",
    "InvalidClientTokenId",
    "SignatureDoesNotMatch",
    "ExpiredToken",
    "InvalidAccessKeyId",
}
_DENIED_CODES = {"AccessDeniedException", "AccessDenied"}
_NOT_FOUND = {"ResourceNotFoundException", "NoSuchBucket", "NoSuchKey", "NotFound", "404"}
_CONNECTION_ERRORS = {"EndpointConnectionError", "ConnectTimeoutError", "ConnectionClosedError", "ReadTimeoutError"}


def error_code(error: BaseException) -> tuple[str, int, str]:
    """(code, HTTP status, message) of a botocore error; the code of an XML body when the endpoint
    answered a JSON service in XML (moto does)."""
    code = ""
    status = 0
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        code = str(response.get("Error", {}).get("Code", ""))
        status = int(response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
    text = str(error)
    if code.isdigit():
        found = re.search(r"<Code>(\w+)</Code>", text)
        code = found.group(1) if found else code
        found = re.search(r"<Message>([^<]*)</Message>", text)
        text = f"{code}: {found.group(1)}" if found else text
    return code, status, text


def worded(connection: Connection, what: str, error: BaseException, doing: str, fix_options: str) -> AwsError:
    """A boto/botocore error as one line that names the resource (`what`, e.g. ``kinesis stream
    'orders'``), what was being done, and what to check; `fix_options` names the options that say
    which resource it is."""
    name = type(error).__name__
    code, status, text = error_code(error)
    if code in _NOT_FOUND:
        hint = f"it does not exist: create it, or fix the options {fix_options}/region/endpoint"
    elif name in _CONNECTION_ERRORS:
        hint = (
            "the endpoint does not answer: check the option endpoint (or AWS_ENDPOINT_URL*) and region, and the network"
        )
    elif name in ("NoCredentialsError", "PartialCredentialsError") or code in _CREDENTIAL_CODES:
        hint = (
            f"the credentials are missing or refused ({code or name}): fix the options "
            "aws_access_key_id/aws_secret_access_key (and aws_session_token), or the server's AWS_* "
            "environment or profile they default to"
        )
    elif code in _DENIED_CODES or status == 403:
        hint = (
            f"the credentials are not allowed to do this ({code or status}): grant them the {connection.service} "
            "actions on it, or give other ones with the options aws_access_key_id/aws_secret_access_key"
        )
    else:
        hint = "see the cause"
    cause = " ".join(text.split())[:300]
    return AwsError(f"{connection.service}: {what} {connection.where()}: {doing} failed: {hint} ({name}: {cause})")


def unknown_options(service: str, opts: Mapping[str, str], known: Mapping[str, str]) -> None:
    """Fails naming the options the source does not take."""
    unknown = sorted(set(opts) - set(known))
    if unknown:
        raise AwsError(f"{service}: unknown option {', '.join(unknown)} (known: {', '.join(sorted(known))})")
