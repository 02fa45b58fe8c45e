"""A response and its body stream, over a sluice_response in callback mode.

The body's bytes come to `Body.on_data` in sluice_client_dispatch (the loop's
thread), copied into bytes objects. Python keeps at most one staged block (64 KiB)
of them: beyond it on_data says "pause", and the library holds the rest staged, its
stream held at its allowance exactly as for a C++ reader that stops; the consumer taking
Python's last chunk resumes delivery. So a reader that stops reading costs its allowance
plus one receive in the library and one block in Python, whatever the body's size.
"""

import asyncio
import collections
import ctypes
import json

from . import _callbacks, _capi
from .errors import HTTPStatusError, UsageError, check, error_for

_VERSIONS = {10: "1.0", 11: "1.1", 20: "2", 30: "3"}
_PIECE = 64 * 1024  # the most the library hands on_data at once


class Headers(list):
    """The response's header fields in order, as (name, value) pairs with names as the
    server sent them; lookups ignore case."""

    def get(self, name, default=None):
        wanted = name.lower()
        for field, value in self:
            if field.lower() == wanted:
                return value
        return default

    def get_all(self, name):
        wanted = name.lower()
        return [value for field, value in self if field.lower() == wanted]


def _text(pointer, length):
    return ctypes.string_at(pointer, length).decode("latin-1")


def _read_headers(handle):
    headers = Headers()
    name, value = ctypes.c_void_p(), ctypes.c_void_p()
    name_len, value_len = ctypes.c_size_t(), ctypes.c_size_t()
    for index in range(_capi.response_header_count(handle)):
        check(_capi.response_header(handle, index, ctypes.byref(name), ctypes.byref(name_len),
                                    ctypes.byref(value), ctypes.byref(value_len)))
        headers.append((_text(name.value, name_len.value), _text(value.value, value_len.value)))
    return headers


class Body:
    """`async for chunk in response.body` (bytes), or `await response.body.read()`."""

    def __init__(self, response, handle, initial_allowance, loop, dispatch):
        self._response = response
        self._loop = loop
        self._dispatch = dispatch
        # Python's own buffer stops at one staged block (or the initial allowance, if
        # smaller): the library keeps the rest staged within the allowance, so a reader
        # that stops holds about what a C++ reader holds, not a second allowance on top.
        self._limit = min(initial_allowance, _PIECE)
        self._chunks = collections.deque()
        self._buffered = 0
        self._paused = False
        self._ended = False
        self._error = None
        self._waiter = None
        self._handle = handle
        self._key = _callbacks.register(self)
        check(_capi.response_on_data(handle, _callbacks.on_data, _callbacks.on_end, self._key))

    @property
    def buffered(self):
        """Bytes received and not yet taken by the reader, on Python's side."""
        return self._buffered

    # --- from the callbacks, in dispatch ---
    def on_data(self, data):
        self._chunks.append(data)
        self._buffered += len(data)
        self._wake()
        if self._buffered >= self._limit:
            self._paused = True
            return 0
        return 1

    def on_end(self, code):
        self._ended = True
        if code != _capi.OK:
            self._error = error_for(code)
        self._wake()

    def _wake(self):
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    # --- the reader's side ---
    def __aiter__(self):
        return self

    async def __anext__(self):
        while not self._chunks:
            if self._error is not None:
                raise self._error
            if self._ended:
                raise StopAsyncIteration
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            except asyncio.CancelledError:
                self._response.cancel("the reading task was cancelled")
                raise
        chunk = self._chunks.popleft()
        self._buffered -= len(chunk)
        if self._paused and not self._chunks and self._handle and not self._ended:
            self._paused = False
            check(_capi.response_resume(self._handle))
            # The resume queued the next delivery for this thread: run it now, so the
            # next chunk (staged already, as a rule) is here before the reader asks,
            # without a turn of the loop and its poll for each 64 KiB.
            self._dispatch()
        return chunk

    async def read(self):
        return b"".join([chunk async for chunk in self])

    def _detach(self):
        _callbacks.unregister(self._key)
        self._handle = None


class Response:
    """A response whose head arrived: status, http_version, headers, url, redirected,
    and its body. Close it (or use `async with`) to give up a body before its end."""

    def __init__(self, handle, pending, initial_allowance, loop, dispatch):
        self._handle = handle
        self._pending = pending
        self.status = _capi.response_status(handle)
        self.http_version = _VERSIONS.get(_capi.response_http_version(handle), "?")
        self.redirected = _capi.response_redirects(handle) > 0
        self._headers = None
        self._url = None
        self.body = Body(self, handle, initial_allowance, loop, dispatch)

    # Read from the library when first asked for (then kept): many callers never look,
    # and reading every field was a third of the binding's time per small request.
    @property
    def headers(self):
        if self._headers is None:
            self._require_handle()
            self._headers = _read_headers(self._handle)
        return self._headers

    @property
    def connects(self):
        """Connections opened for the request across its redirects (curl's num_connects)."""
        self._require_handle()
        return _capi.response_connects(self._handle)

    @property
    def url(self):
        """The URL after redirects."""
        if self._url is None:
            self._require_handle()
            url, length = ctypes.c_char_p(), ctypes.c_size_t()
            check(_capi.response_effective_url(self._handle, ctypes.byref(url), ctypes.byref(length)))
            self._url = ctypes.string_at(url, length.value).decode("utf-8", "replace")
        return self._url

    @property
    def remote_address(self):
        """(ip, port) the connection reached: ("127.0.0.1", 443)."""
        self._require_handle()
        ip, length, port = ctypes.c_char_p(), ctypes.c_size_t(), ctypes.c_uint16()
        check(_capi.response_remote_address(self._handle, ctypes.byref(ip), ctypes.byref(length),
                                            ctypes.byref(port)))
        return ctypes.string_at(ip, length.value).decode("ascii"), port.value

    @property
    def local_address(self):
        """(ip, port) the connection left from: ("127.0.0.1", 51234); ("", 0) over a
        Unix socket."""
        self._require_handle()
        ip, length, port = ctypes.c_char_p(), ctypes.c_size_t(), ctypes.c_uint16()
        check(_capi.response_local_address(self._handle, ctypes.byref(ip), ctypes.byref(length),
                                           ctypes.byref(port)))
        return ctypes.string_at(ip, length.value).decode("ascii"), port.value

    @property
    def timing(self):
        """When each step happened, in milliseconds from the request's start (Resource
        Timing's names): fetch_start, dns_start, dns_end, connect_start, connect_end,
        tls_start, tls_end, request_start, response_start, response_end; None for a step
        that did not happen (no DNS, connect or TLS on a reused connection, no
        response_end while the body is under way). Also connection_reused."""
        self._require_handle()
        steps = {}
        ns = ctypes.c_int64()
        for index, name in enumerate(_capi.TIMING_STEPS):
            check(_capi.response_timing(self._handle, index, ctypes.byref(ns)))
            steps[name] = None if ns.value < 0 else ns.value / 1e6
        steps["connection_reused"] = bool(_capi.response_connection_reused(self._handle))
        return steps

    @property
    def tls(self):
        """What TLS did on the response's connection, or None without TLS: a dict with
        version ("TLSv1.3"), cipher, alpn ("h2"), resumed, matched_name, and
        certificate (None when the server sent none: a resumed QUIC session) with
        subject, issuer, not_before and not_after (seconds since 1970, UTC) and
        subject_alt_names (["DNS:localhost", "IP Address:127.0.0.1"])."""
        self._require_handle()
        value, length = ctypes.c_char_p(), ctypes.c_size_t()

        def text(index):
            check(_capi.response_tls(self._handle, index, ctypes.byref(value), ctypes.byref(length)))
            return None if not value else ctypes.string_at(value, length.value).decode("utf-8", "replace")

        fields = {name: text(index) for index, name in enumerate(_capi.TLS_FIELDS)}
        if fields["version"] is None:
            return None
        info = {name: fields[name] for name in ("version", "cipher", "alpn", "matched_name")}
        info["resumed"] = bool(_capi.response_tls_resumed(self._handle))
        not_before, not_after, has = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int()
        check(_capi.response_tls_cert_validity(self._handle, ctypes.byref(not_before),
                                               ctypes.byref(not_after), ctypes.byref(has)))
        info["certificate"] = None
        if has.value:
            names = []
            while True:
                check(_capi.response_tls_cert_san(self._handle, len(names), ctypes.byref(value),
                                                  ctypes.byref(length)))
                if not value:
                    break
                names.append(ctypes.string_at(value, length.value).decode("utf-8", "replace"))
            info["certificate"] = {"subject": fields["subject"], "issuer": fields["issuer"],
                                   "not_before": not_before.value, "not_after": not_after.value,
                                   "subject_alt_names": names}
        return info

    def _require_handle(self):
        if self._handle is None:
            raise UsageError(1002, "the response is closed")

    async def read(self):
        """The whole body as bytes."""
        self._require_handle()
        return await self.body.read()

    async def text(self, encoding="utf-8"):
        return (await self.read()).decode(encoding)

    async def json(self, *, loads=json.loads):
        """The body parsed as JSON (any Content-Type: the caller asked for JSON). The
        bytes go to `loads` as they are, so json.loads tells UTF-8, -16 and -32 apart
        itself; a body that is not JSON raises json.JSONDecodeError (a ValueError)."""
        return loads(await self.read())

    @property
    def ok(self):
        """The status is below 400."""
        return self.status < 400

    def raise_for_status(self):
        """Raises sluice.HTTPStatusError (carrying `status` and this response, whose body
        may still be read) when the status is 4xx or 5xx; else returns the response."""
        if 400 <= self.status < 600:
            raise HTTPStatusError(self)
        return self

    def cancel(self, reason="cancelled"):
        """Any time: the body (or what is left of it) fails with sluice.CancelledError."""
        if self._pending:
            data = reason.encode()
            _capi.pending_cancel(self._pending, data, len(data))

    def close(self):
        if self._handle is None:
            return
        if not self.body._ended:
            self.cancel("the response was closed")
        self.body._detach()
        _capi.response_free(self._handle)
        _capi.pending_free(self._pending)
        self._handle = self._pending = None

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()
