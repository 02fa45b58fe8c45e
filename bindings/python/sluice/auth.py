"""Authentication schemes for Client.fetch(auth=...) beyond Basic (a (user, password)
pair) and Bearer (a str token): DigestAuth (RFC 7616, curl's --digest) and AnyAuth
(curl's --anyauth: the strongest scheme the server's 401 offers), which send the request
without credentials first and answer the 401 once (a second 401 is the response); and
AwsSigV4 (curl's --aws-sigv4), which signs every hop."""

from typing import NamedTuple


class DigestAuth(NamedTuple):
    """HTTP Digest credentials: MD5, SHA-256 or SHA-512-256, whichever the server asks."""
    user: str
    password: str


class AnyAuth(NamedTuple):
    """Credentials for whatever the server offers: Digest (strongest first), else Basic."""
    user: str
    password: str


class AwsSigV4(NamedTuple):
    """AWS Signature Version 4 for S3 and the services that speak its API. `scope` is
    curl's "provider1[:provider2[:region[:service]]]" ("aws:amz:us-east-1:s3"); a service
    and region not given are the host name's first two labels. Every hop is signed for
    its own host, path and time; a bytes body is hashed, a streamed or form body is
    signed as UNSIGNED-PAYLOAD. A session token goes as an X-Amz-Security-Token header."""
    access_key: str
    secret_key: str
    scope: str = "aws:amz"
