"""sluice's errors as Python exceptions, one class per category of the C API's codes
(the hundreds of a sluice_code), each carrying the code's name and the message the
library gave, which a person can act on."""

import builtins
import http

from . import _capi


class Error(Exception):
    """A sluice failure: `code` (the C API's number), `name` ("idle_timeout"),
    `category` ("timeout") and the message."""

    def __init__(self, code, message):
        self.code = code
        self.name = _capi.code_name(code).decode()
        self.category = _capi.category_name(code).decode()
        super().__init__(f"{message} ({self.name})" if message else self.name)


class DnsError(Error):
    pass


class ConnectError(Error, builtins.ConnectionError):
    pass


class TlsError(Error):
    pass


class ProtocolError(Error):
    pass


class TimeoutError(Error, builtins.TimeoutError):
    pass


class CancelledError(Error):
    """The request was cancelled (by the caller, or because the client closed)."""


class TooLargeError(Error):
    pass


class DecodeError(Error):
    pass


class LocalIOError(Error, builtins.OSError):
    pass


class UsageError(Error, builtins.ValueError):
    """The caller asked for something invalid: a bad URL, a header with CR or LF, a
    closed client."""


class HttpError(Error):
    pass


class HTTPStatusError(HttpError):
    """Response.raise_for_status(): the status is 4xx or 5xx. `status`, and `response`,
    whose body may still be read (an error page, a problem+json)."""

    def __init__(self, response):
        self.status = response.status
        self.response = response
        try:
            phrase = " " + http.HTTPStatus(response.status).phrase
        except ValueError:
            phrase = ""
        super().__init__(_capi.E_HTTP_STATUS, f"HTTP status {response.status}{phrase} for {response.url}")


_BY_CATEGORY = {
    "dns": DnsError,
    "connect": ConnectError,
    "tls": TlsError,
    "protocol": ProtocolError,
    "timeout": TimeoutError,
    "cancelled": CancelledError,
    "too_large": TooLargeError,
    "decode": DecodeError,
    "io": LocalIOError,
    "usage": UsageError,
    "http": HttpError,
}


def error_for(code):
    """The exception for a failed call's `code`, with this thread's last message."""
    message = _capi.last_error().decode("utf-8", "replace")
    category = _capi.category_name(code).decode()
    return _BY_CATEGORY.get(category, Error)(code, message)


def check(code):
    """Raises the error for `code` unless it is OK."""
    if code != _capi.OK:
        raise error_for(code)
