"""The asyncio Client: one sluice Client in host-dispatch mode, driven by the event
loop. Its dispatch fd is added with loop.add_reader, so every callback runs on the
loop's thread inside sluice_client_dispatch: no thread per request, no polling."""

import asyncio
import ctypes

from . import _callbacks, _capi, _options, download as _download
from ._params import with_params
from .auth import AnyAuth, AwsSigV4, DigestAuth
from .errors import CancelledError, UsageError, check, error_for
from .form import Form
from .response import Response
from .cookies import CookieJar

# What a streamed request body may run ahead of the network (BodyWriter's bound).
DEFAULT_UPLOAD_BUFFER = 256 * 1024
# The library's initial allowance (Request::allowance), for Python's own buffer.
DEFAULT_INITIAL_ALLOWANCE = 64 * 1024


_TLS_VERSIONS = {"1.2": 12, "1.3": 13}
# The tls dict takes the table's TLS group by member name (session_cache), or by
# the option's own name (tls_session_cache); ca_file and insecure are Client()'s own
# keywords.
_TLS_OPTIONS = _options.group("tls", except_names=("ca_file", "insecure"))
_TLS_OPTIONS.update({name: name for name in list(_TLS_OPTIONS.values())})


def _set_tls_options(handle, tls):
    tls = dict(tls)
    if "min_version" in tls or "max_version" in tls:
        low, high = tls.pop("min_version", "1.2"), tls.pop("max_version", "1.3")
        if low not in _TLS_VERSIONS or high not in _TLS_VERSIONS:
            raise UsageError(1002, "TLS versions are \"1.2\" or \"1.3\"")
        check(_capi.options_set_tls_versions(handle, _TLS_VERSIONS[low], _TLS_VERSIONS[high]))
    unknown = [key for key in tls if key not in _TLS_OPTIONS]
    if unknown:
        raise UsageError(1002, "unknown TLS option(s): " + ", ".join(sorted(unknown)))
    for key, value in tls.items():
        _options.set_option(handle, _TLS_OPTIONS[key], value)


def _set_auth(request, auth):
    if auth is None:
        return
    if isinstance(auth, str):
        token = auth.encode()
        check(_capi.request_set_bearer_token(request, token, len(token)))
        return
    if isinstance(auth, AwsSigV4):
        texts = [str(part).encode() for part in auth]
        check(_capi.request_set_aws_sigv4(request, *(x for text in texts for x in (text, len(text)))))
        return
    setter = _capi.request_set_basic_auth
    if isinstance(auth, DigestAuth):
        setter = _capi.request_set_digest_auth
    elif isinstance(auth, AnyAuth):
        setter = _capi.request_set_any_auth
    user, password = auth
    user_data, password_data = str(user).encode(), str(password).encode()
    check(setter(request, user_data, len(user_data), password_data, len(password_data)))


_NETRC_MODES = {None: 0, "optional": 1, "required": 2}



def _allowance_pair(allowance):
    """An int fixes the allowance; an (initial, max) pair lets it grow."""
    if isinstance(allowance, int):
        return allowance, allowance
    try:
        initial, maximum = allowance
    except (TypeError, ValueError):
        raise UsageError(1002, f"allowance {allowance!r} is not an int or an (initial, max) pair") from None
    return initial, maximum

class Client:
    """`async with sluice.Client() as client: response = await client.fetch(url)`."""

    def __init__(self, *, trust_env=False, ip_version=None, local_port=None, tls=None,
                 netrc=None, netrc_file=None, cookie_jar=None, cookie_file=None, **options):
        """Every option of the library's table is a keyword argument of its name
        (sluice.client_options() lists them with a line of help each; ClientOptions
        in sluice/client.hpp says the whole): texts (`ca_file`, `user_agent`, `proxy`,
        `no_proxy`, `unix_socket`, `dns_servers`, `interface` ...), lists of texts
        (`resolve`: "host:port:addr[,addr]" entries; `connect_to`:
        "host:port:connect_host:connect_port"), bools (`insecure`, `proxy_tunnel` ...),
        counts (`max_connections_per_origin`, `staged_bytes_budget` ...) and durations
        in seconds (`pool_idle_timeout`, `dns_timeout`, `dns_cache_ttl` ...).

        `trust_env`: read http_proxy, https_proxy, all_proxy and no_proxy from the
        environment, as aiohttp's option of that name does (off by default).
        `ip_version` 4 or 6 (curl's -4, -6); `local_port`: a port, or a (first,
        last) range, connections leave from (--local-port).

        `tls`: a dict of TLS options: client_cert, client_key, key_password,
        ca_path, pinned_public_key, tls12_ciphers, tls13_ciphers, key_log_file
        (text); min_version and max_version ("1.2" or "1.3"); session_cache (bool,
        default True); early_data (bool, default False: 0-RTT for safe requests over
        HTTP/3, as curl's --tls-earlydata). A file that cannot be used raises
        sluice.UsageError naming it.

        `netrc`: "optional" or "required" takes credentials for requests without their
        own from `netrc_file` (default ~/.netrc), as curl's --netrc-optional and
        --netrc/--netrc-file; a malformed file raises sluice.UsageError naming its line.

        `cookie_jar`: a sluice.CookieJar, to send its cookies with every request and
        redirect hop and keep every Set-Cookie (off by default, as in curl); several
        Clients may share one. The jar stays reachable as client.cookie_jar.
        `cookie_file`: a path instead of a jar, as curl's `-b FILE -c FILE`: its
        cookies are read if it exists, and every cookie is written back to it when the
        client closes (atomically)."""
        if netrc not in _NETRC_MODES:
            raise UsageError(1002, 'netrc: None, "optional" or "required"')
        if "host_dispatch" in options:
            raise TypeError("host_dispatch is how this Client runs; it cannot be turned off")
        if cookie_file is not None:
            if cookie_jar is not None:
                raise UsageError(1002, "cookie_jar and cookie_file: give one of them")
            cookie_jar = CookieJar(cookie_file)
        self._cookie_file = cookie_file
        option_handle = ctypes.c_void_p()
        check(_capi.options_new(ctypes.byref(option_handle)))
        try:
            for name, value in options.items():
                if value is not None:
                    _options.set_option(option_handle, name, value)
            if trust_env:
                _options.set_option(option_handle, "proxy_from_environment", True)
            if ip_version is not None:
                check(_capi.options_set_ip_version(option_handle, ip_version))
            if local_port is not None:
                first, last = (local_port, local_port) if isinstance(local_port, int) else local_port
                if not 1 <= first <= last <= 65535:
                    raise UsageError(1002, "local_port: a port 1-65535 or a (first, last) range")
                check(_capi.options_set_local_port(option_handle, first, last - first + 1))
            if tls:
                _set_tls_options(option_handle, tls)
            if netrc is not None:
                path = str(netrc_file or "").encode()
                check(_capi.options_set_netrc(option_handle, _NETRC_MODES[netrc], path, len(path)))
            if cookie_jar is not None:
                check(_capi.options_set_cookie_jar(option_handle, cookie_jar._handle))
            _options.set_option(option_handle, "host_dispatch", True)
            client = ctypes.c_void_p()
            check(_capi.client_new(option_handle, ctypes.byref(client)))
        finally:
            _capi.options_free(option_handle)
        self._handle = client.value
        self.cookie_jar = cookie_jar
        self._fd = _capi.client_dispatch_fd(self._handle)
        self._loop = None
        self._downloads = set()  # download.Download objects under way

    # --- the loop ---
    def _bind(self):
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
            loop.add_reader(self._fd, self._dispatch)
        elif self._loop is not loop:
            raise UsageError(1002, "a sluice.Client belongs to the event loop it was first used on")
        return loop

    def _dispatch(self):
        if self._handle:
            _capi.client_dispatch(self._handle, None)

    def _require_open(self):
        if not self._handle:
            raise UsageError(1002, "the client is closed")

    async def __aenter__(self):
        self._require_open()
        self._bind()
        return self

    async def __aexit__(self, *exc):
        self.close()

    def close(self):
        """Cancels what is in flight and frees the client (idempotent). Callbacks still
        waiting run now, so every pending fetch ends; a body not yet ended gives what
        was received, then raises sluice.CancelledError (a body its reader paused
        hears the rest when it reads on: the library delivers it in the resume)."""
        if not self._handle:
            return
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._fd)
        handle, self._handle = self._handle, None
        # A download's thread uses the client: stop each and wait (a fraction of a
        # second), so the client is freed only when none does.
        downloads, self._downloads = list(self._downloads), set()
        for download in downloads:
            download.cancel()
        for download in downloads:
            download.join()
        _capi.client_free(handle)
        if self._cookie_file is not None:
            self.cookie_jar.save(self._cookie_file)

    def stats(self):
        """What the client holds now: in_flight, paused_receivers, staged_bytes, ..."""
        self._require_open()
        stats = _capi.ClientStats()
        check(_capi.client_get_stats(self._handle, ctypes.byref(stats), ctypes.sizeof(stats)))
        return {name: getattr(stats, name) for name, _ in stats._fields_}

    # --- requests ---
    async def fetch(self, url, *, method="GET", headers=None, body=None, version="auto",
                    allowance=None, upload_buffer=DEFAULT_UPLOAD_BUFFER, timeout=None,
                    redirect="manual", decode=False, auth=None, params=None):
        """Sends a request and returns its Response once the head arrived. `params`: a
        dict (a list value repeats its name; None leaves it out) or a list of pairs,
        percent-encoded and appended to the URL's query. `auth`: a
        (user, password) pair for Basic, a str token for Bearer, sluice.DigestAuth(user,
        password) for Digest, sluice.AnyAuth(user, password) for the strongest scheme
        the server's 401 offers, or sluice.AwsSigV4(access_key, secret_key, scope) to sign
        each hop with AWS Signature Version 4, sent to the URL's origin only. `body`: bytes, a sluice.Form
        (multipart/form-data, files streamed),
        or an (async) iterable of bytes streamed with backpressure while the response
        may already arrive. `timeout`: seconds for the whole exchange, or a dict of
        connect/tls/first_byte/idle/total. `allowance`: bytes of the response that may
        wait unread, an int (fixed) or an (initial, max) pair; None: the library's (64 KiB
        growing to 32 MiB while the reader keeps up). `upload_buffer`: bytes a streamed
        body may run ahead of the network. Cancelling the task cancels the request."""
        self._require_open()
        _check_body(body)
        loop = self._bind()
        url = with_params(url, params)
        request = self._build(method, url, headers, version, allowance, timeout, redirect, decode)
        try:
            _set_auth(request, auth)
        except BaseException:
            _capi.request_free(request)
            raise
        writer = None
        try:
            if isinstance(body, (bytes, bytearray, memoryview)):
                data = bytes(body)
                check(_capi.request_set_body_bytes(request, data, len(data)))
            elif isinstance(body, Form):
                body._apply(request)
            elif body is not None:
                writer = ctypes.c_void_p()
                check(_capi.writer_new(upload_buffer, ctypes.byref(writer)))
                check(_capi.request_set_body_writer(request, writer, -1))
            decided = loop.create_future()
            key = _callbacks.register(lambda code, response: _settle(decided, code, response))
            pending = ctypes.c_void_p()
            code = _capi.client_send_cb(self._handle, request, _callbacks.on_response, key,
                                        ctypes.byref(pending))
            if code != _capi.OK:
                _callbacks.unregister(key)
                raise error_for(code)
        except BaseException:
            if writer is not None:
                _capi.writer_free(writer)
            raise
        finally:
            _capi.request_free(request)
        pump = loop.create_task(self._pump(writer, body)) if writer is not None else None
        try:
            response = await decided
        except asyncio.CancelledError:
            _capi.pending_cancel(pending, b"the task was cancelled", 22)
            _capi.pending_free(pending)
            if pump is not None:
                pump.cancel()
            raise
        except BaseException:
            _capi.pending_free(pending)
            raise
        initial = DEFAULT_INITIAL_ALLOWANCE if allowance is None else _allowance_pair(allowance)[0]
        return Response(response, pending.value, initial, loop, self._dispatch)

    async def download(self, url, path=None, *, directory=None, split=1, resume=False,
                       mirrors=(), progress=None, progress_interval=0.2, sha256=None,
                       max_bytes_per_second=0, retries=None, params=None, headers=None,
                       version="auto", timeout=None, redirect="follow", auth=None):
        """Downloads `url` into the file `path` (or a name chosen from the response in
        `directory`) and returns a sluice.DownloadResult. `split`: byte ranges fetched
        at once (1 to 16; one when the server does not answer ranges, and the result's
        notes say so). `resume`: continue a partial file. `mirrors`: other URLs of the
        same file, sharing the ranges. `progress(report)`: called on this loop with a
        sluice.DownloadProgress every `progress_interval` seconds while bytes arrive,
        and once at the end. `sha256`: the hex digest the file must have. `retries`:
        attempts after a transient failure, each resuming. The request's own options
        are fetch's; redirects are followed unless `redirect` says otherwise. Failures
        raise sluice.Error by category (a 404: sluice.HttpError); cancelling the task
        stops the download and keeps the file for a resume."""
        self._require_open()
        loop = self._bind()
        request = self._build("GET", with_params(url, params), headers, version, None, timeout,
                              redirect, False)
        options = ctypes.c_void_p()
        try:
            _set_auth(request, auth)
            check(_capi.download_options_new(request, ctypes.byref(options)))
        finally:
            _capi.request_free(request)
        try:
            _download.configure(options, path=path, directory=directory, split=split,
                                resume=resume, mirrors=mirrors, sha256=sha256,
                                max_bytes_per_second=max_bytes_per_second, retries=retries)
        except BaseException:
            _capi.download_options_free(options)
            raise
        return await _download.run(self._handle, options, loop, progress, progress_interval,
                                   self._downloads)

    def _build(self, method, url, headers, version, allowance, timeout, redirect, decode):
        method_data, url_data = method.encode(), url.encode()
        request = ctypes.c_void_p()
        check(_capi.request_new(method_data, len(method_data), url_data, len(url_data),
                                ctypes.byref(request)))
        try:
            fields = headers.items() if isinstance(headers, dict) else (headers or [])
            for name, value in fields:
                name_data, value_data = name.encode("latin-1"), str(value).encode("latin-1")
                check(_capi.request_add_header(request, name_data, len(name_data), value_data,
                                               len(value_data)))
            # The library's defaults (automatic version, its allowance, redirects
            # returned) need no call: each ctypes call costs about a microsecond.
            if version not in _capi.VERSION_POLICIES:
                raise UsageError(1002, f"version {version!r} is not one of {list(_capi.VERSION_POLICIES)}")
            if version != "auto":
                check(_capi.request_set_version(request, _capi.VERSION_POLICIES[version]))
            if allowance is not None:
                check(_capi.request_set_allowance(request, *_allowance_pair(allowance)))
            if redirect not in _capi.REDIRECT_MODES:
                raise UsageError(1002, f"redirect {redirect!r} is not one of manual, follow, error")
            if redirect != "manual":
                check(_capi.request_set_redirects(request, _capi.REDIRECT_MODES[redirect], 20))
            if decode:
                check(_capi.request_set_decode(request, 1))
            timeouts = timeout if isinstance(timeout, dict) else (
                {} if timeout is None else {"total": timeout})
            for which, seconds in timeouts.items():
                # 0 ms would mean "no timeout": a positive one of under 1 ms is 1 ms.
                ms = max(1, round(seconds * 1000)) if seconds > 0 else 0
                check(_capi.request_set_timeout_ms(request, _capi.TIMEOUTS[which], ms))
        except BaseException:
            _capi.request_free(request)
            raise
        return request

    async def _pump(self, writer, body):
        """Streams `body` into the writer: a write that would block waits for the
        writer's writable callback (run in dispatch), never blocking the loop."""
        try:
            async for piece in _pieces(body):
                data = bytes(piece)
                while True:
                    code = _capi.writer_write_timeout(writer, data, len(data), 0)
                    if code == _capi.OK:
                        break
                    if code != _capi.WOULD_BLOCK:
                        raise error_for(code)
                    writable = self._loop.create_future()
                    key = _callbacks.register(lambda: writable.done() or writable.set_result(None))
                    check(_capi.writer_when_writable(writer, _callbacks.on_writable, key))
                    await writable
            check(_capi.writer_close(writer))
        except asyncio.CancelledError:
            _capi.writer_abort(writer, b"cancelled", 9)
            raise
        except CancelledError:
            pass  # the request ended first: it says why itself
        except BaseException as failure:
            reason = f"the request body failed: {failure!r}".encode()
            _capi.writer_abort(writer, reason, len(reason))
        finally:
            _capi.writer_free(writer)


def _check_body(body):
    """Refuses a body that is neither bytes nor an iterable of them before anything
    is sent (a str would otherwise stream its characters one by one)."""
    if body is None or isinstance(body, (bytes, bytearray, memoryview, Form)):
        return
    if isinstance(body, str) or not (hasattr(body, "__aiter__") or hasattr(body, "__iter__")):
        raise TypeError(f"body must be bytes, a sluice.Form or an (async) iterable of bytes, "
                        f"not {type(body).__name__}")


def _settle(decided, code, response):
    if decided.done():  # the task was cancelled meanwhile: nobody takes the response
        if response:
            _capi.response_free(response)
        return
    if code == _capi.OK:
        decided.set_result(response)
    else:
        decided.set_exception(error_for(code))


async def _pieces(body):
    if hasattr(body, "__aiter__"):
        async for piece in body:
            yield piece
    else:
        for piece in body:
            yield piece
