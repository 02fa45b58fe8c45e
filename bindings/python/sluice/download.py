"""Client.download(): a URL into a file over sluice_download (include/sluice/download.hpp
says the whole: ranges, resume, mirrors, checksum, retries).

sluice_download blocks the thread that calls it, and calls its progress callback on that
thread; so each download runs on a thread of its own, and everything it tells Python
(progress, the result, the error) is handed to the event loop with
call_soon_threadsafe: the caller's code runs only on the loop. The C calls release the
GIL, so the loop runs on while the library works.

Who frees what: the download's thread frees its options, and only after sluice_download
returned, under `_lock`, so a cancel from the loop never meets freed options and a
task cancelled twice, or a loop that closed, leaks nothing and crashes nothing.
"""

import asyncio
import collections
import ctypes
import dataclasses
import os
import threading

from . import _capi
from .errors import UsageError, check, error_for

DownloadProgress = collections.namedtuple(
    "DownloadProgress", "bytes_done total bytes_per_second finished")
DownloadProgress.__doc__ = """A progress report: bytes of the file on disk (resumed ones
included), its size (None until known), the recent rate, and whether this is the last
report (sent once at the end, success or failure)."""


@dataclasses.dataclass(frozen=True)
class DownloadResult:
    path: str           # the file written
    status: int         # of the first response (200, 206; 304 or 412 when a condition held)
    size: int           # bytes in the complete file
    transferred: int    # body bytes received by this run
    resumed_from: int   # bytes already on disk that were kept
    ranges: int         # ranges fetched at once
    steals: int         # times a range that ended early took half of another's rest
    notes: tuple        # what a person should know ("the server ignored the range; ...")


def _text(value):
    return os.fspath(value).encode()


def _result_from(handle):
    path, length = ctypes.c_char_p(), ctypes.c_size_t()
    check(_capi.download_result_path(handle, ctypes.byref(path), ctypes.byref(length)))
    notes = []
    for index in range(_capi.download_result_note_count(handle)):
        note, note_length = ctypes.c_char_p(), ctypes.c_size_t()
        check(_capi.download_result_note(handle, index, ctypes.byref(note), ctypes.byref(note_length)))
        notes.append(ctypes.string_at(note, note_length.value).decode("utf-8", "replace"))
    return DownloadResult(
        path=os.fsdecode(ctypes.string_at(path, length.value)),
        status=_capi.download_result_status(handle),
        size=_capi.download_result_size(handle),
        transferred=_capi.download_result_transferred(handle),
        resumed_from=_capi.download_result_resumed_from(handle),
        ranges=_capi.download_result_ranges(handle),
        steals=_capi.download_result_steals(handle),
        notes=tuple(notes))


def configure(options, *, path, directory, split, resume, mirrors, sha256, max_bytes_per_second,
              retries):
    """Sets everything but progress on a sluice_download_options."""
    if path is not None:
        data = _text(path)
        check(_capi.download_options_set_path(options, data, len(data)))
    if directory is not None:
        data = _text(directory)
        check(_capi.download_options_set_directory(options, data, len(data)))
    if resume:
        check(_capi.download_options_set_resume(options, 1))
    if split != 1:
        if isinstance(split, bool) or not isinstance(split, int):
            raise UsageError(1002, f"split: an int 1 to 16, not {split!r}")
        check(_capi.download_options_set_ranges(options, split))
    if sha256 is not None:
        data = sha256.lower().encode()
        check(_capi.download_options_set_sha256(options, data, len(data)))
    if max_bytes_per_second:
        check(_capi.download_options_set_max_bytes_per_second(options, max_bytes_per_second))
    if retries is not None:
        check(_capi.download_options_set_retries(options, retries))
    if isinstance(mirrors, (str, bytes)):
        raise UsageError(1002, "mirrors: a list of URLs, not one")
    for mirror in mirrors or ():
        data = mirror.encode()
        check(_capi.download_options_add_mirror(options, data, len(data)))


class Download:
    """One sluice_download on its own thread. Made and awaited on the loop's thread."""

    def __init__(self, client_handle, options, loop, progress, progress_interval):
        self._options = options
        self._lock = threading.Lock()
        self._loop = loop
        self.done = loop.create_future()
        # Kept referenced until the thread ends: the library calls it until then.
        self._on_progress = None
        if progress is not None:
            self._on_progress = _capi.PROGRESS_CB(self._forward(progress))
            interval_ms = max(1, round(progress_interval * 1000))
            check(_capi.download_options_set_progress(options, self._on_progress, None, interval_ms))
        self._thread = threading.Thread(target=self._work, args=(client_handle,),
                                        name="sluice-download", daemon=True)

    def start(self):
        self._thread.start()

    def _forward(self, progress):
        loop = self._loop

        def on_progress(user_data, bytes_done, total, bytes_per_second, finished):
            report = DownloadProgress(bytes_done, None if total < 0 else total, bytes_per_second,
                                      bool(finished))
            try:
                loop.call_soon_threadsafe(progress, report)
            except RuntimeError:
                pass  # the loop closed: nobody listens any more
        return on_progress

    # --- the download's thread ---
    def _work(self, client_handle):
        result = ctypes.c_void_p()
        code = _capi.download(client_handle, self._options, ctypes.byref(result))
        try:
            # The message is this thread's (sluice_last_error), so the error is made here.
            outcome = _result_from(result) if code == _capi.OK else error_for(code)
        except BaseException as failure:
            outcome = failure
        finally:
            _capi.download_result_free(result)
            with self._lock:
                _capi.download_options_free(self._options)
                self._options = None
        try:
            self._loop.call_soon_threadsafe(self._settle, outcome)
        except RuntimeError:
            pass  # the loop closed while the download ran

    def _settle(self, outcome):
        if self.done.done():
            return
        if isinstance(outcome, BaseException):
            self.done.set_exception(outcome)
        else:
            self.done.set_result(outcome)

    # --- the loop's thread ---
    def cancel(self):
        """Stops the download within a fraction of a second (SLUICE_E_CANCELLED); the
        file and its control file stay, so a resume continues it."""
        with self._lock:
            if self._options is not None:
                _capi.download_options_cancel(self._options)

    def join(self):
        """Waits for the thread (Client.close: the client must outlive the download)."""
        if self._thread.ident is not None:
            self._thread.join()


async def run(client_handle, options, loop, progress, progress_interval, downloads):
    """Runs a configured download to its end: its DownloadResult, or its error. The
    options are the download's from here on (its thread frees them). Cancelling the
    awaiting task cancels the download and waits for it to stop, so the file is left
    as it stands for a resume."""
    try:
        download = Download(client_handle, options, loop, progress, progress_interval)
    except BaseException:
        _capi.download_options_free(options)
        raise
    downloads.add(download)
    download.done.add_done_callback(lambda _: downloads.discard(download))
    download.start()
    try:
        return await asyncio.shield(download.done)
    except asyncio.CancelledError:
        download.cancel()
        if not download.done.done():
            await asyncio.wait([download.done])  # another cancel leaves here: still safe
        if download.done.done() and not download.done.cancelled():
            download.done.exception()  # a cancelled download's own error is expected: seen
        raise
