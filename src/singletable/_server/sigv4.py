"""Optional AWS Signature Version 4 checking, refusing bad requests with AWS's own errors and texts.

Off unless credentials are configured: a local DynamoDB normally accepts any signature, and SDKs always
sign. When on, a request must be signed by a known access key -- useful when a server is shared and
clients should hold distinct keys. Failures are coral (front-end) errors with status 400, as DynamoDB
sends them: a missing header, an unknown key, a stale clock, or a signature that does not match (whose
message, like AWS's, shows the canonical request and string-to-sign we computed).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote

from singletable._protocol import coral_error
from singletable.engine import DynamoDBError

ALGORITHM = "AWS4-HMAC-SHA256"
MAX_SKEW_SECONDS = 15 * 60
_SPACES = re.compile(r"\s+")
# Between an Authorization header's fields: AWS accepts ", " (as SDKs sign), "," or plain spaces.
_FIELD_SEPARATORS = re.compile(r"[,\s]+")

MISMATCH = (
    "The request signature we calculated does not match the signature you provided. Check your AWS Secret "
    "Access Key and signing method. Consult the service documentation for details."
)


def parse_credentials(text: str) -> dict[str, str]:
    """``ACCESS_KEY:SECRET`` (or ``=``, or whitespace) pairs, one per line or comma-separated; # comments."""
    pairs: dict[str, str] = {}
    for raw in re.split(r"[\n,]", text):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = re.split(r"[:=\s]+", line, maxsplit=1)
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise ValueError(f"credentials line is not ACCESS_KEY:SECRET: {line!r}")
        pairs[parts[0]] = parts[1]
    return pairs


def load_verifier(source: str | None) -> SigV4Verifier | None:
    """A verifier from a credentials file path, or inline pairs; None (accept anything) when unset."""
    if not source:
        return None
    path = Path(source)
    text = path.read_text() if path.exists() else source
    return SigV4Verifier(parse_credentials(text))


@functools.lru_cache(maxsize=256)
def _signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    key = hmac.digest(("AWS4" + secret).encode(), date.encode(), "sha256")
    for part in (region, service, "aws4_request"):
        key = hmac.digest(key, part.encode(), "sha256")
    return key


def _amz_stamp(epoch: float) -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(epoch))


class SigV4Verifier:
    def __init__(self, keys: dict[str, str], *, clock: Any = time.time) -> None:
        self.keys = keys
        self.clock = clock

    def check(
        self, scope: Mapping[str, Any], headers: dict[bytes, bytes], body: bytes
    ) -> DynamoDBError | None:
        """None when the request is signed by a known key, else the error DynamoDB would answer."""
        authorization = headers.get(b"authorization", b"").decode("latin-1")
        if not authorization:
            return coral_error(
                "MissingAuthenticationTokenException", "Request is missing Authentication Token"
            )
        fields = self._fields(authorization)
        if isinstance(fields, DynamoDBError):
            return fields
        credential, signed_headers, signature = fields
        scope_parts = credential.split("/")
        if len(scope_parts) != 5 or scope_parts[4] != "aws4_request":
            return coral_error(
                "IncompleteSignatureException",
                f"Credential should be scoped to a valid region. Authorization={authorization}",
            )
        access_key, date, region, service, _ = scope_parts
        secret = self.keys.get(access_key)
        if secret is None:
            return coral_error(
                "UnrecognizedClientException", "The security token included in the request is invalid."
            )
        amz_date = headers.get(b"x-amz-date", b"").decode("latin-1")
        if not amz_date:
            return coral_error(
                "IncompleteSignatureException",
                f"Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
                f"Authorization={authorization}",
            )
        stale = self._clock_problem(amz_date)
        if stale is not None:
            return stale
        if amz_date[:8] != date:
            return coral_error(
                "InvalidSignatureException",
                f"Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: "
                f"'{date}' != '{amz_date[:8]}', from '{amz_date}'.",
            )
        canonical = self._canonical_request(scope, headers, signed_headers, body)
        credential_scope = f"{date}/{region}/{service}/aws4_request"
        string_to_sign = "\n".join(
            [ALGORITHM, amz_date, credential_scope, hashlib.sha256(canonical.encode()).hexdigest()]
        )
        expected = hmac.new(_signing_key(secret, date, region, service), string_to_sign.encode(), "sha256")
        if hmac.compare_digest(expected.hexdigest(), signature):
            return None
        return coral_error(
            "InvalidSignatureException",
            f"{MISMATCH}\n\nThe Canonical String for this request should have been\n'{canonical}'\n\n"
            f"The String-to-Sign should have been\n'{string_to_sign}'\n",
        )

    @staticmethod
    def _fields(authorization: str) -> tuple[str, str, str] | DynamoDBError:
        algorithm, _, rest = authorization.partition(" ")
        if algorithm != ALGORITHM:
            return coral_error("IncompleteSignatureException", f"Unsupported AWS 'algorithm': '{algorithm}'")
        values: dict[str, str] = {}
        for part in _FIELD_SEPARATORS.split(rest.strip()):
            name, _, value = part.partition("=")
            values[name] = value
        missing = [name for name in ("Credential", "Signature", "SignedHeaders") if not values.get(name)]
        if missing:
            text = " ".join(f"Authorization header requires '{name}' parameter." for name in missing)
            return coral_error("IncompleteSignatureException", f"{text} Authorization={authorization}")
        return values["Credential"], values["SignedHeaders"], values["Signature"]

    def _clock_problem(self, amz_date: str) -> DynamoDBError | None:
        try:
            signed_at = time.mktime(time.strptime(amz_date, "%Y%m%dT%H%M%SZ")) - time.timezone
        except ValueError:
            return coral_error(
                "IncompleteSignatureException", f"Date must be in ISO-8601 'basic format'. Got '{amz_date}'."
            )
        now = self.clock()
        if signed_at < now - MAX_SKEW_SECONDS:
            return coral_error(
                "InvalidSignatureException",
                f"Signature expired: {amz_date} is now earlier than {_amz_stamp(now - MAX_SKEW_SECONDS)} "
                f"({_amz_stamp(now)} - 15 min.)",
            )
        if signed_at > now + MAX_SKEW_SECONDS:
            return coral_error(
                "InvalidSignatureException",
                f"Signature not yet current: {amz_date} is still later than "
                f"{_amz_stamp(now + MAX_SKEW_SECONDS)} "
                f"({_amz_stamp(now)} + 15 min.)",
            )
        return None

    @staticmethod
    def _canonical_request(
        scope: Mapping[str, Any], headers: dict[bytes, bytes], signed: str, body: bytes
    ) -> str:
        path = quote(scope.get("path") or "/", safe="/-_.~")
        query_string = scope.get("query_string", b"").decode("latin-1")
        query = "&".join(
            f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}"
            for k, v in sorted(parse_qsl(query_string, keep_blank_values=True))
        )
        lines = []
        for name in signed.split(";"):
            value = headers.get(name.encode("latin-1"), b"").decode("latin-1")
            lines.append(f"{name}:{_SPACES.sub(' ', value.strip())}\n")
        return "\n".join(
            [scope["method"], path, query, "".join(lines), signed, hashlib.sha256(body).hexdigest()]
        )
