"""multipart/form-data request bodies (curl's -F), built in libsluice: fields are
sent from memory, files stream from disk while the request is sent (never loaded
whole). Pass one as `body=` to Client.fetch."""

import os

from . import _capi
from .errors import check


class Form:
    """An ordered list of fields and files. A missing file fails the fetch with
    LocalIOError naming it, when the request is sent."""

    def __init__(self):
        self._parts = []

    def field(self, name, value):
        """A text field (str, encoded as UTF-8, or bytes). Returns the form."""
        self._parts.append(("field", _text(name, "name"), _data(value)))
        return self

    def file(self, name, path, filename=None, content_type=None):
        """A file upload: `filename` defaults to the path's last component and
        `content_type` to a guess from it. Returns the form."""
        self._parts.append(("file", _text(name, "name"), os.fsencode(path),
                            None if filename is None else _text(filename, "filename"),
                            None if content_type is None else _text(content_type, "content_type")))
        return self

    def _apply(self, request):
        """Adds every part to a C request (sluice_request_add_form_*)."""
        for part in self._parts:
            if part[0] == "field":
                _, name, value = part
                check(_capi.request_add_form_field(request, name, len(name), value, len(value)))
            else:
                _, name, path, filename, content_type = part
                check(_capi.request_add_form_file(
                    request, name, len(name), path, len(path),
                    filename, 0 if filename is None else len(filename),
                    content_type, 0 if content_type is None else len(content_type)))


def _text(value, what):
    if not isinstance(value, str):
        raise TypeError(f"form {what} must be a str, not {type(value).__name__}")
    return value.encode()


def _data(value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"a form field's value must be str or bytes, not {type(value).__name__}")
