"""sluice for asyncio: an HTTP/1.1, HTTP/2 and HTTP/3 client whose bodies obey
backpressure end to end, over libsluice's C API (ctypes; nothing to compile).

    import sluice

    async with sluice.Client() as client:
        response = await client.fetch("https://example.org/")
        async for chunk in response.body:
            ...
"""

from ._capi import version as _version
from ._options import names as client_options
from .auth import AnyAuth, AwsSigV4, DigestAuth
from .client import Client
from .form import Form
from .cookies import CookieJar
from .download import DownloadProgress, DownloadResult
from .errors import (CancelledError, ConnectError, DecodeError, DnsError, Error, HttpError,
                     HTTPStatusError, LocalIOError, ProtocolError, TimeoutError, TlsError,
                     TooLargeError, UsageError)
from .response import Headers, Response

__version__ = _version().decode()

__all__ = ["Client", "client_options", "CookieJar", "Form", "DigestAuth", "AnyAuth", "AwsSigV4", "Response", "Headers", "Error", "DnsError", "ConnectError", "TlsError",
           "ProtocolError", "TimeoutError", "CancelledError", "TooLargeError", "DecodeError",
           "LocalIOError", "UsageError", "HttpError", "HTTPStatusError", "DownloadProgress",
           "DownloadResult"]
