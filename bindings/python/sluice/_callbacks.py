"""The C callbacks, shared by every Client. Their user_data is a key into
`handlers`, never a pointer to a Python object, so a callback that comes for an
object already gone finds nothing instead of freed memory.

With host dispatch (which the Client always asks for) the library runs these only
inside sluice_client_dispatch(), on the event loop's thread. A callback must not
raise into C: a failure goes to the loop's exception handler instead.
"""

import asyncio
import ctypes
import itertools

from . import _capi

handlers = {}
_keys = itertools.count(1)


def register(handler):
    key = next(_keys)
    handlers[key] = handler
    return key


def unregister(key):
    handlers.pop(key, None)


def _report(what):
    try:
        asyncio.get_running_loop().call_exception_handler(
            {"message": f"sluice: a {what} callback failed", "exception": _current()})
    except RuntimeError:
        pass


def _current():
    import sys
    return sys.exc_info()[1]


@_capi.RESPONSE_CB
def on_response(user_data, code, response):
    handler = handlers.pop(user_data, None)
    try:
        if handler is None:
            if response:
                _capi.response_free(response)  # nobody waits for it any more
            return
        handler(code, response)
    except BaseException:
        _report("response")


@_capi.DATA_CB
def on_data(user_data, data, length):
    handler = handlers.get(user_data)
    try:
        if handler is None:
            return 1  # a body nobody reads any more: let it drain
        return handler.on_data(ctypes.string_at(data, length))
    except BaseException:
        _report("body data")
        return 1


@_capi.END_CB
def on_end(user_data, code):
    handler = handlers.pop(user_data, None)
    try:
        if handler is not None:
            handler.on_end(code)
    except BaseException:
        _report("body end")


@_capi.WRITABLE_CB
def on_writable(user_data):
    handler = handlers.pop(user_data, None)
    try:
        if handler is not None:
            handler()
    except BaseException:
        _report("writable")
