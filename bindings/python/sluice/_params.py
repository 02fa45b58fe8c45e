"""`params=`: query parameters appended to a URL, as requests and httpx take them."""

import urllib.parse


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"  # httpx's spelling; str() would say "True"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise TypeError(f"a query parameter is a str, int, float or bool, not {type(value).__name__}")


def _pairs(params):
    """(name, value) pairs from a dict (a list value repeats its name) or a list of
    pairs, in order; a None value leaves its name out, as requests does."""
    items = params.items() if hasattr(params, "items") else params
    for name, value in items:
        if not isinstance(name, str):
            raise TypeError(f"a query parameter's name is a str, not {type(name).__name__}")
        values = value if isinstance(value, (list, tuple)) else [value]
        for one in values:
            if one is not None:
                yield name, _text(one)


def with_params(url, params):
    """`url` with `params` percent-encoded (form style: a space is "+") after its own
    query, before any fragment. No params: the URL unchanged."""
    if not params:
        return url
    query = urllib.parse.urlencode(list(_pairs(params)))
    if not query:
        return url
    base, hash_sign, fragment = url.partition("#")
    if "?" not in base:
        separator = "?"
    elif base.endswith(("?", "&")):
        separator = ""
    else:
        separator = "&"
    return base + separator + query + hash_sign + fragment
