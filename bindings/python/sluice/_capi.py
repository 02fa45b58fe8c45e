"""The C API of libsluice (include/sluice/sluice.h) declared for ctypes.

Only declarations live here: argument and result types of each function the
package calls and the callback types. Which library is loaded is _library.py's
business.
"""

import ctypes

from . import _library

OK = 0
WOULD_BLOCK = 1
E_CANCELLED = 600
E_HTTP_STATUS = 1100

VERSION_POLICIES = {
    "auto": 0,
    "1.1": 1,
    "2": 2,
    "2-prior-knowledge": 3,
    "3": 4,
    "3-only": 5,
    "1.0": 6,
}
REDIRECT_MODES = {"manual": 0, "follow": 1, "error": 2}
TIMEOUTS = {"connect": 0, "tls": 1, "first_byte": 2, "idle": 3, "total": 4}


lib = _library.load()

c_code = ctypes.c_int
c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p
c_size_t = ctypes.c_size_t
c_uint32 = ctypes.c_uint32
c_uint64 = ctypes.c_uint64
c_int64 = ctypes.c_int64
p_void = ctypes.POINTER(ctypes.c_void_p)


class ClientStats(ctypes.Structure):
    _fields_ = [
        ("in_flight", c_size_t),
        ("paused_receivers", c_size_t),
        ("staged_bytes", c_size_t),
        ("retained_scratch_bytes", c_size_t),
        ("request_body_bytes_held", c_size_t),
        ("connections", c_size_t),
        ("sweep_releases", c_uint64),
        ("sweep_bytes_released", c_uint64),
        ("budget_waits", c_uint64),
        ("allowance_bytes", c_size_t),
        ("dns_queries", c_uint64),
        ("dns_cache_hits", c_uint64),
        ("tls_full_handshakes", c_uint64),
        ("tls_resumed_handshakes", c_uint64),
        ("tls_handshake_cpu_ns", c_uint64),
        ("quic_full_handshakes", c_uint64),
        ("quic_resumed_handshakes", c_uint64),
        ("quic_early_data_accepted", c_uint64),
        ("quic_early_data_rejected", c_uint64),
        ("quic_early_requests", c_uint64),
        ("owned_upload_bytes", c_size_t),
        ("owned_upload_waits", c_uint64),
    ]


# Callbacks: user_data carries a key into the owning Client's registry, never a
# Python object pointer, so a callback for a gone object finds nothing instead of
# freed memory.
RESPONSE_CB = ctypes.CFUNCTYPE(None, c_void_p, c_code, c_void_p)
DATA_CB = ctypes.CFUNCTYPE(ctypes.c_int, c_void_p, ctypes.POINTER(ctypes.c_uint8), c_size_t)
END_CB = ctypes.CFUNCTYPE(None, c_void_p, c_code)
WRITABLE_CB = ctypes.CFUNCTYPE(None, c_void_p)


def _declare(name, restype, *argtypes):
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


version = _declare("sluice_version", c_char_p)
code_name = _declare("sluice_code_name", c_char_p, ctypes.c_int)
category_name = _declare("sluice_category_name", c_char_p, ctypes.c_int)
last_error = _declare("sluice_last_error", c_char_p)

options_new = _declare("sluice_client_options_new", c_code, p_void)
options_free = _declare("sluice_client_options_free", None, c_void_p)
options_set_netrc = _declare(
    "sluice_client_options_set_netrc", c_code, c_void_p, ctypes.c_int, c_char_p, c_size_t)
options_set_ip_version = _declare("sluice_client_options_set_ip_version", c_code, c_void_p, ctypes.c_int)
options_set_local_port = _declare(
    "sluice_client_options_set_local_port", c_code, c_void_p, ctypes.c_uint16, ctypes.c_uint16)
options_set_tls_versions = _declare(
    "sluice_client_options_set_tls_versions", c_code, c_void_p, ctypes.c_int, ctypes.c_int)


# Every option that takes one value is set by name from the library's own table
# (sluice_client_option_next), so an option the library gains needs nothing here.
class OptionInfo(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("kind", ctypes.c_int), ("help", c_char_p), ("field", c_char_p)]


OPTION_TEXT, OPTION_TEXT_LIST, OPTION_FLAG, OPTION_COUNT, OPTION_MILLISECONDS, OPTION_SECONDS = range(1, 7)
option_next = _declare("sluice_client_option_next", ctypes.POINTER(OptionInfo),
                       ctypes.POINTER(OptionInfo))
options_set_text = _declare("sluice_client_options_set_text", c_code, c_void_p, c_char_p, c_char_p, c_size_t)
options_set_number = _declare("sluice_client_options_set_number", c_code, c_void_p, c_char_p, ctypes.c_uint64)


def _option_table():
    table = {}
    info = option_next(None)
    while info:
        entry = info.contents
        table[entry.name.decode()] = (entry.kind, entry.help.decode(), entry.field.decode())
        info = option_next(info)
    return table


# name -> (kind, help, ClientOptions field such as "tls.session_cache"), in the library's order.
OPTIONS = _option_table()

client_new = _declare("sluice_client_new", c_code, c_void_p, p_void)
client_free = _declare("sluice_client_free", None, c_void_p)
client_dispatch_fd = _declare("sluice_client_dispatch_fd", ctypes.c_int, c_void_p)
client_dispatch = _declare("sluice_client_dispatch", c_code, c_void_p, ctypes.POINTER(c_size_t))
client_get_stats = _declare("sluice_client_get_stats", c_code, c_void_p, ctypes.POINTER(ClientStats), c_size_t)
client_send_cb = _declare("sluice_client_send_cb", c_code, c_void_p, c_void_p, RESPONSE_CB, c_void_p, p_void)

request_new = _declare("sluice_request_new", c_code, c_char_p, c_size_t, c_char_p, c_size_t, p_void)
request_free = _declare("sluice_request_free", None, c_void_p)
request_add_header = _declare("sluice_request_add_header", c_code, c_void_p, c_char_p, c_size_t, c_char_p, c_size_t)
request_set_body_bytes = _declare("sluice_request_set_body_bytes", c_code, c_void_p, c_char_p, c_size_t)
request_set_body_writer = _declare("sluice_request_set_body_writer", c_code, c_void_p, c_void_p, c_int64)
request_add_form_field = _declare(
    "sluice_request_add_form_field", c_code, c_void_p, c_char_p, c_size_t, c_char_p, c_size_t)
request_add_form_file = _declare(
    "sluice_request_add_form_file", c_code, c_void_p, c_char_p, c_size_t, c_char_p, c_size_t,
    c_char_p, c_size_t, c_char_p, c_size_t)
request_set_version = _declare("sluice_request_set_version", c_code, c_void_p, ctypes.c_int)
request_set_allowance = _declare("sluice_request_set_allowance", c_code, c_void_p, c_size_t,
                                 c_size_t)
request_set_basic_auth = _declare(
    "sluice_request_set_basic_auth", c_code, c_void_p, c_char_p, c_size_t, c_char_p, c_size_t)
request_set_bearer_token = _declare(
    "sluice_request_set_bearer_token", c_code, c_void_p, c_char_p, c_size_t)
request_set_digest_auth = _declare(
    "sluice_request_set_digest_auth", c_code, c_void_p, c_char_p, c_size_t, c_char_p, c_size_t)
request_set_any_auth = _declare(
    "sluice_request_set_any_auth", c_code, c_void_p, c_char_p, c_size_t, c_char_p, c_size_t)
request_set_aws_sigv4 = _declare(
    "sluice_request_set_aws_sigv4", c_code, c_void_p, c_char_p, c_size_t, c_char_p, c_size_t,
    c_char_p, c_size_t)
request_set_timeout_ms = _declare("sluice_request_set_timeout_ms", c_code, c_void_p, ctypes.c_int, c_uint32)
request_set_redirects = _declare("sluice_request_set_redirects", c_code, c_void_p, ctypes.c_int, ctypes.c_int)
request_set_decode = _declare("sluice_request_set_decode", c_code, c_void_p, ctypes.c_int)

writer_new = _declare("sluice_body_writer_new", c_code, c_size_t, p_void)
writer_free = _declare("sluice_body_writer_free", None, c_void_p)
writer_write_timeout = _declare("sluice_body_writer_write_timeout", c_code, c_void_p, c_char_p, c_size_t, c_uint32)
writer_when_writable = _declare("sluice_body_writer_when_writable", c_code, c_void_p, WRITABLE_CB, c_void_p)
writer_close = _declare("sluice_body_writer_close", c_code, c_void_p)
writer_abort = _declare("sluice_body_writer_abort", c_code, c_void_p, c_char_p, c_size_t)

pending_cancel = _declare("sluice_pending_cancel", c_code, c_void_p, c_char_p, c_size_t)
pending_free = _declare("sluice_pending_free", None, c_void_p)

response_free = _declare("sluice_response_free", None, c_void_p)
response_status = _declare("sluice_response_status", ctypes.c_int, c_void_p)
response_http_version = _declare("sluice_response_http_version", ctypes.c_int, c_void_p)
response_effective_url = _declare(
    "sluice_response_effective_url", c_code, c_void_p, ctypes.POINTER(c_char_p), ctypes.POINTER(c_size_t))
response_redirects = _declare("sluice_response_redirects", ctypes.c_int, c_void_p)
response_connects = _declare("sluice_response_connects", ctypes.c_int, c_void_p)
response_remote_address = _declare(
    "sluice_response_remote_address", c_code, c_void_p, ctypes.POINTER(c_char_p),
    ctypes.POINTER(c_size_t), ctypes.POINTER(ctypes.c_uint16))
response_local_address = _declare(
    "sluice_response_local_address", c_code, c_void_p, ctypes.POINTER(c_char_p),
    ctypes.POINTER(c_size_t), ctypes.POINTER(ctypes.c_uint16))
response_timing = _declare(
    "sluice_response_timing", c_code, c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int64))
response_connection_reused = _declare("sluice_response_connection_reused", ctypes.c_int, c_void_p)
# sluice_tls_field, in order
TLS_FIELDS = ("version", "cipher", "alpn", "subject", "issuer", "matched_name")
response_tls = _declare(
    "sluice_response_tls", c_code, c_void_p, ctypes.c_int, ctypes.POINTER(c_char_p),
    ctypes.POINTER(c_size_t))
response_tls_cert_san = _declare(
    "sluice_response_tls_cert_san", c_code, c_void_p, c_size_t, ctypes.POINTER(c_char_p),
    ctypes.POINTER(c_size_t))
response_tls_cert_validity = _declare(
    "sluice_response_tls_cert_validity", c_code, c_void_p, ctypes.POINTER(ctypes.c_int64),
    ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int))
response_tls_resumed = _declare("sluice_response_tls_resumed", ctypes.c_int, c_void_p)
# sluice_timing_step, in order: Resource Timing's names for the steps
TIMING_STEPS = ("fetch_start", "dns_start", "dns_end", "connect_start", "connect_end",
                "tls_start", "tls_end", "request_start", "response_start", "response_end")
response_header_count = _declare("sluice_response_header_count", c_size_t, c_void_p)
response_header = _declare(
    "sluice_response_header", c_code, c_void_p, c_size_t, ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(c_size_t), ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(c_size_t))
response_on_data = _declare("sluice_response_on_data", c_code, c_void_p, DATA_CB, END_CB, c_void_p)
response_resume = _declare("sluice_response_resume", c_code, c_void_p)
response_buffered = _declare("sluice_response_buffered", c_size_t, c_void_p)

# Cookies (sluice_cookie_jar; cookies.py).
cookie_jar_new = _declare("sluice_cookie_jar_new", c_code, p_void)
cookie_jar_free = _declare("sluice_cookie_jar_free", None, c_void_p)
cookie_jar_load = _declare("sluice_cookie_jar_load", c_code, c_void_p, c_char_p, c_size_t, ctypes.c_int)
cookie_jar_save = _declare("sluice_cookie_jar_save", c_code, c_void_p, c_char_p, c_size_t)
cookie_jar_header = _declare("sluice_cookie_jar_header", c_code, c_void_p, c_char_p, c_size_t,
                             ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(c_size_t))
cookie_jar_count = _declare("sluice_cookie_jar_count", c_size_t, c_void_p)
options_set_cookie_jar = _declare("sluice_client_options_set_cookie_jar", c_code, c_void_p, c_void_p)

# Downloads (sluice_download; download.py). sluice_download blocks its thread, and
# its progress callback runs on that thread.
PROGRESS_CB = ctypes.CFUNCTYPE(None, c_void_p, c_uint64, c_int64, ctypes.c_double, ctypes.c_int)
download_options_new = _declare("sluice_download_options_new", c_code, c_void_p, p_void)
download_options_free = _declare("sluice_download_options_free", None, c_void_p)
download_options_set_path = _declare(
    "sluice_download_options_set_path", c_code, c_void_p, c_char_p, c_size_t)
download_options_set_directory = _declare(
    "sluice_download_options_set_directory", c_code, c_void_p, c_char_p, c_size_t)
download_options_set_resume = _declare("sluice_download_options_set_resume", c_code, c_void_p, ctypes.c_int)
download_options_set_ranges = _declare("sluice_download_options_set_ranges", c_code, c_void_p, ctypes.c_uint)
download_options_set_sha256 = _declare(
    "sluice_download_options_set_sha256", c_code, c_void_p, c_char_p, c_size_t)
download_options_set_max_bytes_per_second = _declare(
    "sluice_download_options_set_max_bytes_per_second", c_code, c_void_p, c_uint64)
download_options_set_retries = _declare("sluice_download_options_set_retries", c_code, c_void_p, ctypes.c_int)
download_options_set_progress = _declare(
    "sluice_download_options_set_progress", c_code, c_void_p, PROGRESS_CB, c_void_p, c_uint32)
download_options_cancel = _declare("sluice_download_options_cancel", c_code, c_void_p)
download = _declare("sluice_download", c_code, c_void_p, c_void_p, p_void)
download_result_free = _declare("sluice_download_result_free", None, c_void_p)
download_result_path = _declare(
    "sluice_download_result_path", c_code, c_void_p, ctypes.POINTER(c_char_p), ctypes.POINTER(c_size_t))
download_result_status = _declare("sluice_download_result_status", ctypes.c_int, c_void_p)
download_result_size = _declare("sluice_download_result_size", c_uint64, c_void_p)
download_result_transferred = _declare("sluice_download_result_transferred", c_uint64, c_void_p)
download_result_resumed_from = _declare("sluice_download_result_resumed_from", c_uint64, c_void_p)
download_result_ranges = _declare("sluice_download_result_ranges", ctypes.c_uint, c_void_p)
download_result_steals = _declare("sluice_download_result_steals", ctypes.c_uint, c_void_p)
download_result_note_count = _declare("sluice_download_result_note_count", c_size_t, c_void_p)
download_result_note = _declare(
    "sluice_download_result_note", c_code, c_void_p, c_size_t, ctypes.POINTER(c_char_p),
    ctypes.POINTER(c_size_t))
download_options_add_mirror = _declare("sluice_download_options_add_mirror", c_code, c_void_p,
                                       c_char_p, c_size_t)
