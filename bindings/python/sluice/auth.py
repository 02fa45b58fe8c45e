"""Authentication schemes for Client.fetch(auth=...) beyond Basic (a (user, password)
pair) and Bearer (a str token): DigestAuth (RFC 7616, curl's --digest) and AnyAuth
(curl's --anyauth: the strongest scheme the server's 401 offers). Both send the request
without credentials first and answer the 401 once; a second 401 is the response."""

from typing import NamedTuple


class DigestAuth(NamedTuple):
    """HTTP Digest credentials: MD5, SHA-256 or SHA-512-256, whichever the server asks."""
    user: str
    password: str


class AnyAuth(NamedTuple):
    """Credentials for whatever the server offers: Digest (strongest first), else Basic."""
    user: str
    password: str
