"""Client options from Python values, set by name through the library's option table
(sluice_client_option_next): a text (str or path), a list of texts, a bool, an int,
or a duration in seconds (int, float or datetime.timedelta)."""

import datetime
import os

from . import _capi
from .errors import UsageError, check

_UINT32_MAX = 2**32 - 1


def names():
    """{name: one line of help} for every option Client() takes by its own name."""
    return {name: help_text for name, (_, help_text, _) in _capi.OPTIONS.items()}


def group(prefix, except_names=()):
    """{member: option name} of the table's options in ClientOptions group `prefix`
    ("tls"), by their member names there (session_cache for tls_session_cache)."""
    members = {}
    for name, (_, _, field) in _capi.OPTIONS.items():
        owner, _, member = field.partition(".")
        if member and owner == prefix and name not in except_names:
            members[member] = name
    return members


def _text(name, value):
    if isinstance(value, bytes):
        raise UsageError(1002, f"{name}: a str or a path, not bytes")
    return os.fspath(value).encode() if isinstance(value, os.PathLike) else str(value).encode()


def _count(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(1002, f"{name}: a non-negative int, not {value!r}")
    return value


def _duration(name, value, per_second):
    if isinstance(value, datetime.timedelta):
        value = value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise UsageError(1002, f"{name}: seconds (an int, a float or a timedelta), not {value!r}")
    number = round(value * per_second)
    if number > _UINT32_MAX:
        raise UsageError(1002, f"{name}: at most {_UINT32_MAX // per_second} seconds")
    return number


def set_option(handle, name, value):
    """Sets option `name` of an options handle; an unknown name is a TypeError, as an
    unknown keyword argument is."""
    entry = _capi.OPTIONS.get(name)
    if entry is None:
        raise TypeError(f"Client() got an unexpected keyword argument {name!r}")
    kind, key = entry[0], name.encode()
    if kind == _capi.OPTION_TEXT:
        data = _text(name, value)
        check(_capi.options_set_text(handle, key, data, len(data)))
    elif kind == _capi.OPTION_TEXT_LIST:
        if isinstance(value, (str, bytes, os.PathLike)):
            raise UsageError(1002, f"{name}: a list of entries, not one")
        for entry in value:
            data = _text(name, entry)
            check(_capi.options_set_text(handle, key, data, len(data)))
    elif kind == _capi.OPTION_FLAG:
        check(_capi.options_set_number(handle, key, 1 if value else 0))
    elif kind == _capi.OPTION_COUNT:
        check(_capi.options_set_number(handle, key, _count(name, value)))
    else:
        per_second = 1000 if kind == _capi.OPTION_MILLISECONDS else 1
        check(_capi.options_set_number(handle, key, _duration(name, value, per_second)))
