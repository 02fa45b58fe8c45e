"""sluice.CookieJar: the library's cookie engine (RFC 6265bis) for Clients.

    jar = sluice.CookieJar("cookies.txt")      # curl's -b cookies.txt
    async with sluice.Client(cookie_jar=jar) as client:
        await client.fetch(url, redirect="follow")
    jar.save("cookies.txt")                    # curl's -c cookies.txt

The jar is thread-safe in the library and may be shared by several Clients; this
object's methods belong to one thread at a time (like the other handles)."""

import ctypes
import os

from . import _capi
from .errors import check


class CookieJar:
    """Cookies set by responses (redirects too) and sent with requests."""

    def __init__(self, path=None, *, drop_session=False):
        """`path`: a cookie file to read first (the Netscape format curl writes, or
        "Set-Cookie:" lines); a file that does not exist is skipped, as curl's -b does.
        `drop_session`: leave out cookies without an expiry (curl's -j)."""
        handle = ctypes.c_void_p()
        check(_capi.cookie_jar_new(ctypes.byref(handle)))
        self._handle = handle.value
        if path is not None and os.path.exists(path):
            self.load(path, drop_session=drop_session)

    def load(self, path, *, drop_session=False):
        """Adds the cookies of a file; raises sluice.LocalIOError when it cannot be read."""
        data = os.fsencode(path)
        check(_capi.cookie_jar_load(self._handle, data, len(data), 1 if drop_session else 0))

    def save(self, path):
        """Writes every cookie to `path` as curl's -c does (atomically: temp file + rename)."""
        data = os.fsencode(path)
        check(_capi.cookie_jar_save(self._handle, data, len(data)))

    def header(self, url):
        """The Cookie header value a request to `url` gets ("" when none)."""
        data = url.encode()
        out, out_len = ctypes.c_char_p(), ctypes.c_size_t()
        check(_capi.cookie_jar_header(self._handle, data, len(data), ctypes.byref(out),
                                      ctypes.byref(out_len)))
        return ctypes.string_at(out, out_len.value).decode("latin-1") if out_len.value else ""

    def __len__(self):
        return _capi.cookie_jar_count(self._handle)

    def close(self):
        """Frees the handle; Clients made with the jar keep using it."""
        if self._handle:
            _capi.cookie_jar_free(self._handle)
            self._handle = None

    def __del__(self):
        self.close()
