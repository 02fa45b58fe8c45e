#!/usr/bin/env python3
"""Writes the seed corpora in fuzz/corpus/<target>/ (committed; rerun after changing
an input layout). Each seed follows its target's input layout, documented at the top
of fuzz/<target>_fuzz.cpp and in fuzz/README.md. Compressed seeds are made with zlib
(Python's) and with libbrotlienc and libzstd through ctypes (Debian's libbrotli-dev and
libzstd-dev, which the build needs anyway)."""

import ctypes
import ctypes.util
import gzip
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode("latin-1")
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def one_piece(payload):
    """fuzz_input.hpp split header for 'all in one feed', then the payload."""
    return b"\x00" + payload


def pieces_of(lengths, payload):
    """Split header cutting the payload into pieces of these lengths, in turn."""
    return bytes([len(lengths)]) + bytes(lengths) + payload


# ---- text parsers --------------------------------------------------------------

def url_seeds():
    seeds = {
        "relative": "http://example.org/a/b?c#d\n../x",
        "userinfo-ipv6": "https://user:pw@[::1]:8443/p%20q?x=1\n//other.example/y",
        "upper-query-only": "HTTP://Example.ORG\n?only-query",
        "rfc3986-base": "http://a/b/c/d;p?q\ng;x?y#s",
        "absolute-dots": "http://127.0.0.1:8080/\nhttps://example.com:443/a/./b/../c",
        "non-ascii": "http://x/\xc3\xa4 \xc3\xb6\n#frag",
        "dot-segments": "http://h/a/b/c\n../../../../g",
    }
    for name, text in seeds.items():
        write("url", name, text)


def alt_svc_seeds():
    seeds = {
        "h3-and-draft": "\x00h3=\":443\"; ma=86400, h3-29=\":443\"",
        "other-host": "\x04h3=\"alt.example:8443\"; ma=3600; persist=1",
        "clear": "\x01clear",
        "ipv6-percent": "\x02h2=\"[2001:db8::1]:443\", h%33=\"Host.Example:1\"",
        "ma-zero-then-live": "\x00h3=\":443\"; ma=0\n\x40h3=\":8443\"\n\x01h3=\":1\"; ma=99999999999",
        "quoted-escapes": "\x00h3=\"\\:443\"; foo=\"a,b\", h3=\":444\"",
    }
    for name, text in seeds.items():
        write("alt_svc", name, text)


def headers_seeds():
    write("headers", "fields",
          "\x00content-type:text/html\nX-Custom:  spaced \n:status:200\n"
          "content-length:42\nContent-Length:0042")
    write("headers", "pseudo-and-bad",
          "\x01:path:/\nbad name:x\n:status:099\nset-cookie:a=b\nSET-COOKIE:c=d\nk:\tv\x7f")


def content_disposition_seeds():
    seeds = {
        "quoted": "file.bin\nattachment; filename=\"report.pdf\"",
        "extended": "dir/\nattachment; filename*=UTF-8''na%C3%AFve%20file.txt; filename=\"fallback.txt\"",
        "traversal": "x\ninline; filename=\"../../etc/passwd\"",
        "latin1": "a%2Fb\nattachment; filename*=iso-8859-1'en'%E9t%E9.txt",
        "escaped": "\nattachment; filename=\"quoted \\\"name\\\".txt\"; size=10",
        "backslash": "%2e%2e\nattachment; filename=C:\\windows\\x.exe",
    }
    for name, text in seeds.items():
        write("content_disposition", name, text)


def netrc_seeds():
    seeds = {
        "machines": "a.example\nmachine a.example login alice password one\n"
                    "machine b.example\n  login bob\n  password two\n",
        "user-and-default": "a.example:carol\nmachine a.example login alice password one\n"
                            "machine a.example login carol password three\ndefault login anon password x\n",
        "quoted": "a.example\nmachine a.example login \"al ice\" password \"p\\\"w\\\\d\\n\"\n",
        "macdef-comments": "c.example\n# comment\nmachine a.example login a # tail\nmacdef init\ncd /\n"
                           "machine b.example login b\n\nmachine c.example login c password d account e\n",
        "unclosed": "a.example\nmachine a.example login \"open\n",
        "crlf": "a.example\r\nmachine a.example\r\n login a\r\n password b\r\n",
    }
    for name, text in seeds.items():
        write("netrc", name, text)


def auth_challenge_seeds():
    seeds = {
        "rfc7616": "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=SHA-256, "
                   "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", "
                   "opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\"",
        "several": "Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\"",
        "sess-userhash": "Digest realm=r, nonce=n, algorithm=SHA-512-256-sess, qop=auth, userhash=true, stale=TRUE",
        "token68": "Negotiate abc+/d==, Bearer realm=x, Basic",
        "md5-no-qop": "DIGEST REALM = \"a, b\" ,, NONCE=abc, opaque=\"o\"",
        "broken": "Basic realm=x, Digest realm=\"unclosed",
    }
    for name, text in seeds.items():
        write("auth_challenge", name, text)


def cookie_seeds():
    # Flags byte (bit 0 https, bit 1 cookie file, bit 2 drop session, bits 3-7 the
    # per-domain limit - 1), the request's host/path line, then Set-Cookie lines
    # ("\x01" moves the clock a second) or a cookie file.
    set_cookie = "\n".join([
        "sid=abc; Path=/; Domain=.example.com; Secure; HttpOnly; SameSite=Lax",
        "\x01",
        "exp=1; Expires=Wed, 09-Jun-2021 10:18:14 GMT",
        "age=2; Max-Age=3600; Expires=Sun Nov  6 08:49:37 1994",
        "__Host-h=1; Secure; Path=/",
        "__Secure-s=1; Secure",
        "psl=1; Domain=co.uk",
        "nameless",
        "del=; Max-Age=0",
    ])
    write("cookie", "set-cookie-https", "\x19www.example.com/a/b\n" + set_cookie)
    write("cookie", "set-cookie-http", "\x08shop.example.co.uk/x\n" + set_cookie)
    netscape = ("# Netscape HTTP Cookie File\n\n"
                "#HttpOnly_.example.com\tTRUE\t/\tFALSE\t4102444800\tsid\tabc\n"
                "www.example.com\tFALSE\t/app\tTRUE\t0\tpref\tdark\n"
                "example.com\tFALSE\t/\tFALSE\t0\tsixfields\n"
                "junk\n"
                "Set-Cookie: a=1; Domain=example.com; Max-Age=100\r\n")
    write("cookie", "netscape-file", "\x0awww.example.com/app/x\n" + netscape)
    write("cookie", "netscape-file-junk-session", "\x0ewww.example.com/\n" + netscape)


def download_control_seeds():
    head = "sluice-download-control 1\nurl https://example.org/f.bin\n"
    write("download_control", "ranges",
          head + "size 1000\nvalidator \"abc\"\nrange 0 500 100\nrange 500 1000 0\nend\n")
    write("download_control", "unknown-size", head + "size -\nvalidator\nrange 0 - 42\nend\n")
    write("download_control", "date-validator",
          head + "size 18446744073709551615\nvalidator Wed, 21 Oct 2015 07:28:00 GMT\n"
          "range 0 9223372036854775808 1\nrange 9223372036854775808 18446744073709551615 0\nend\n")


def content_range_seeds():
    seeds = ["bytes 0-499/1000", "bytes */1000", "bytes 100-199/*", " bytes 0-0/1 ",
             "bytes 18446744073709551615-18446744073709551615/*", "bytes 5-4/10"]
    for i, text in enumerate(seeds):
        write("content_range", "seed-%d" % i, text)


def http_date_seeds():
    seeds = ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
             "Sun Nov  6 08:49:37 1994", "Wed, 09-Jun-2021 10:18:14 GMT",
             "Thu, 29 Feb 2024 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
             "Mon, 01 Jan 1601 00:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 +0100",
             "6 november 1994 8:49:37 UT", "Thu, 01 Jan 0069 00:00:00 GMT"]
    for i, text in enumerate(seeds):
        write("http_date", "seed-%d" % i, text)


def proxy_connect_seeds():
    answers = [
        one_piece(b"HTTP/1.1 200 Connection established\r\n\r\n"),
        pieces_of([1, 3, 7], b"HTTP/1.0 200 OK\r\nVia: 1.1 squid\r\n\r\n"),
        one_piece(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                  b"Proxy-Authenticate: Basic realm=\"x\"\r\nContent-Length: 4\r\n\r\nnope"),
        one_piece(b"HTTP/1.1 403 Forbidden\r\n\r\n"),
        one_piece(b"HTTP/1.1 200 OK\r\n\r\n\x16\x03\x01"),
        one_piece(b"SSH-2.0-OpenSSH_9.2\r\n\r\n"),
        pieces_of([200], b"HTTP/1.1 200 OK\r\n" + b"X: " + b"y" * 600 + b"\r\n\r\n"),
    ]
    for i, data in enumerate(answers):
        write("proxy_connect", "seed-%d" % i, data)


def socks5_handshake_seeds():
    granted = b"\x05\x00\x00\x01\x7f\x00\x00\x01\x04\x38"
    cases = [
        b"\x00" + one_piece(b"\x05\x00" + granted),
        b"\x00" + pieces_of([2, 3], b"\x05\x00" + granted),
        b"\x01" + pieces_of([2, 2], b"\x05\x02\x01\x00" + granted),
        b"\x01" + pieces_of([2, 2], b"\x05\x02\x01\x01"),
        b"\x02" + pieces_of([2], b"\x05\x00\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00"),
        b"\x00" + pieces_of([2], b"\x05\x00\x05\x00\x00\x03\x04host\x00\x50"),
        b"\x00" + one_piece(b"\x05\xff"),
        b"\x00" + one_piece(b"HTTP/1.1 400 Bad Request\r\n\r\n"),
    ]
    for i, data in enumerate(cases):
        write("socks5_handshake", "seed-%d" % i, data)


# ---- HTTP/1.1 -----------------------------------------------------------------

def h1_response_seeds():
    chunked = ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n"
               "5;ext=1\r\nhello\r\n0\r\nX-Sum: 42\r\n\r\n").encode()
    write("h1_response", "length", b"\x00" + one_piece(
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"))
    write("h1_response", "chunked-trailers", b"\x00" + one_piece(chunked))
    write("h1_response", "chunked-split", b"\x00" + pieces_of([1, 5, 2], chunked))
    write("h1_response", "interim-then-two", b"\x00" + one_piece(
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
    write("h1_response", "until-close", b"\x02" + one_piece(
        b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbody until close"))
    write("h1_response", "head", b"\x01" + one_piece(
        b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"))
    write("h1_response", "small-limit", b"\x00" + pieces_of([7], (
        "HTTP/1.1 404 Not Found\r\nX-Long: " + "a" * 300 + "\r\nContent-Length: 0\r\n\r\n").encode()))


# ---- content decoding ---------------------------------------------------------

def brotli_compress(data):
    lib = ctypes.CDLL(ctypes.util.find_library("brotlienc") or "libbrotlienc.so.1")
    out_size = ctypes.c_size_t(len(data) + 1024)
    out = ctypes.create_string_buffer(out_size.value)
    ok = lib.BrotliEncoderCompress(5, 22, 0, ctypes.c_size_t(len(data)), data,
                                   ctypes.byref(out_size), out)
    if not ok:
        sys.exit("make_seeds: brotli compression failed")
    return out.raw[:out_size.value]


def zstd_compress(data):
    lib = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
    lib.ZSTD_compressBound.restype = ctypes.c_size_t
    lib.ZSTD_compress.restype = ctypes.c_size_t
    lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
    bound = lib.ZSTD_compressBound(ctypes.c_size_t(len(data)))
    out = ctypes.create_string_buffer(bound)
    size = lib.ZSTD_compress(out, ctypes.c_size_t(bound), data, ctypes.c_size_t(len(data)), 3)
    if lib.ZSTD_isError(ctypes.c_size_t(size)):
        sys.exit("make_seeds: zstd compression failed")
    return out.raw[:size]


def raw_deflate(data):
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def content_decoder_seeds():
    text = b"".join(b"line %03d: a sluice lets water through at the rate below\n" % i
                    for i in range(40))
    # Coding indexes follow kCodings in content_decoder_fuzz.cpp.
    gzip_body = gzip.compress(text, mtime=0)
    seeds = {
        "gzip": (0, gzip_body),
        "gzip-two-members": (0, gzip_body + gzip.compress(b"more", mtime=0)),
        "deflate-zlib": (1, zlib.compress(text)),
        "deflate-raw": (1, raw_deflate(text)),
        "br": (2, brotli_compress(text)),
        "zstd": (3, zstd_compress(text)),
        "gzip-then-br": (5, brotli_compress(gzip_body)),
        "br-then-zstd": (6, zstd_compress(brotli_compress(text))),
        "zstd-then-gzip": (8, gzip.compress(zstd_compress(text), mtime=0)),
    }
    for name, (coding, body) in seeds.items():
        # limits: none; room: 256 bytes a step; sweep after every piece.
        write("content_decoder", name, bytes([coding, 0, 0, 0xff]) + one_piece(body))
    write("content_decoder", "gzip-split-limited",
          bytes([0, 0x12, 3, 0x55]) + pieces_of([1, 9, 30], gzip_body))
    bomb = zlib.compress(b"\x00" * (4 << 20), 9)
    write("content_decoder", "deflate-ratio", bytes([1, 0x1f, 255, 0]) + one_piece(bomb))


# ---- HTTP/2 -------------------------------------------------------------------

def h2_frame(kind, flags, stream_id, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + \
        struct.pack(">I", stream_id) + payload


def hpack_literal(name, value):
    """Literal header field without indexing, new name (RFC 7541 6.2.2)."""
    name, value = name.encode(), value.encode()
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


STATUS_200 = b"\x88"  # HPACK static table index 8
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = \
    0, 1, 3, 4, 6, 7, 8, 9
END_STREAM, END_HEADERS, PADDED = 1, 4, 8


def h2_seed(config, actions, split, frames):
    return bytes([config, len(actions)]) + bytes(actions) + split(frames)


def h2_session_seeds():
    simple = (h2_frame(HEADERS, END_HEADERS, 1, STATUS_200 + hpack_literal("content-length", "5")) +
              h2_frame(DATA, END_STREAM, 1, b"hello"))
    write("h2_session", "simple", h2_seed(0x18, [], one_piece, simple))
    write("h2_session", "simple-split", h2_seed(0x18, [], lambda f: pieces_of([3, 10], f), simple))
    two = (h2_frame(HEADERS, END_HEADERS, 1, STATUS_200) +
           h2_frame(DATA, 0, 1, b"abc") +
           h2_frame(HEADERS, END_HEADERS | END_STREAM, 1, hpack_literal("x-checksum", "1")) +
           h2_frame(HEADERS, END_HEADERS | END_STREAM, 3, b"\x8d"))  # :status 404
    write("h2_session", "trailers-and-404", h2_seed(0x19, [], one_piece, two))
    interim = (h2_frame(HEADERS, END_HEADERS, 1, hpack_literal(":status", "103")) +
               h2_frame(HEADERS, END_HEADERS, 1, STATUS_200) +
               h2_frame(DATA, PADDED | END_STREAM, 1, b"\x04data\x00\x00\x00\x00"))
    write("h2_session", "interim-padded", h2_seed(0x18, [], one_piece, interim))
    control = (h2_frame(SETTINGS, 0, 0, struct.pack(">HI", 3, 1) + struct.pack(">HI", 4, 100000)) +
               h2_frame(PING, 0, 0, b"12345678") +
               h2_frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 100000)) +
               h2_frame(WINDOW_UPDATE, 0, 1, struct.pack(">I", 100000)) +
               h2_frame(RST_STREAM, 0, 3, struct.pack(">I", 7)) +
               h2_frame(GOAWAY, 0, 0, struct.pack(">II", 1, 0) + b"bye"))
    write("h2_session", "control-frames", h2_seed(0x1d, [], one_piece, control))
    continued = (h2_frame(HEADERS, 0, 1, STATUS_200) +
                 h2_frame(CONTINUATION, END_HEADERS, 1, hpack_literal("x-a", "b")) +
                 h2_frame(DATA, END_STREAM, 1, b""))
    write("h2_session", "continuation", h2_seed(0x18, [], one_piece, continued))
    # Mark 1 KiB; the consumer holds stream 1, then takes all after later pieces.
    big = (h2_frame(HEADERS, END_HEADERS, 1, STATUS_200) +
           b"".join(h2_frame(DATA, 0, 1, b"x" * 1000) for _ in range(3)) +
           h2_frame(DATA, END_STREAM, 1, b"end"))
    write("h2_session", "hold-take", h2_seed(0x00, [0x04, 0x08, 0x00], lambda f: pieces_of([100], f), big))
    post = (h2_frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 100000)) +
            h2_frame(WINDOW_UPDATE, 0, 1, struct.pack(">I", 100000)) +
            h2_frame(HEADERS, END_HEADERS | END_STREAM, 1, STATUS_200))
    write("h2_session", "post-window", h2_seed(0x1c, [0x14, 0x18, 0x1c], one_piece, post))


# ---- HTTP/3 -------------------------------------------------------------------

def varint(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return struct.pack(">H", 0x4000 | n)
    return struct.pack(">I", 0x80000000 | n)


def h3_frame(kind, payload):
    return varint(kind) + varint(len(payload)) + payload


def record(selector, data=b"", value=None):
    """One h3_fuzz record: selector, 16-bit LE length (or app error), data."""
    length = len(data) if value is None else value
    return bytes([selector]) + struct.pack("<H", length) + data


FIN = 8
QPACK_STATUS_200, QPACK_STATUS_404, QPACK_STATUS_103 = b"\xd9", b"\xdb", b"\xd8"


def qpack(*lines, prefix=b"\x00\x00"):
    return prefix + b"".join(lines)


def qpack_literal_name(name, value):
    """Literal field line with literal name, no Huffman (RFC 9204 4.5.6)."""
    name, value = name.encode(), value.encode()
    assert len(name) < 7 and len(value) < 127
    return bytes([0x20 | len(name)]) + name + bytes([len(value)]) + value


def h3_seed(config, actions, records):
    return bytes([config, len(actions)]) + bytes(actions) + b"".join(records)


def h3_seeds():
    head = h3_frame(1, qpack(QPACK_STATUS_200, b"\x54\x015"))  # content-length: 5
    write("h3", "simple", h3_seed(0x18, [], [record(FIN, head + h3_frame(0, b"hello"))]))
    trailers = h3_frame(1, qpack(qpack_literal_name("x-sum", "42")))
    write("h3", "interim-trailers", h3_seed(0x19, [], [
        record(0, h3_frame(1, qpack(QPACK_STATUS_103))),
        record(0, h3_frame(1, qpack(QPACK_STATUS_200)) + h3_frame(0, b"abc")),
        record(FIN, trailers),
        record(1 | FIN, h3_frame(1, qpack(QPACK_STATUS_404)))]))
    write("h3", "goaway", h3_seed(0x19, [], [
        record(4, h3_frame(7, varint(4))),
        record(FIN, h3_frame(1, qpack(QPACK_STATUS_200)))]))
    write("h3", "reset-and-more-streams", h3_seed(0x19, [0x14], [
        record(0x40, value=0x0b),  # RESET_STREAM H3_REQUEST_REJECTED on request 0
        record(0x70, value=0),     # the server allows 4 more streams
        record(1 | FIN, head + h3_frame(0, b"hello"))]))
    big = h3_frame(1, qpack(QPACK_STATUS_200)) + b"".join(
        h3_frame(0, b"y" * 1000) for _ in range(3))
    write("h3", "hold-take", h3_seed(0x00, [0x04, 0x00, 0x08], [
        record(0, big[:1500]), record(0, big[1500:]), record(FIN, h3_frame(0, b"end"))]))
    # QPACK encoder stream: capacity 220, insert "foo: bar"; the head refers to it.
    encoder = b"\x3f\xbd\x01" + b"\x43foo" + b"\x03bar"
    write("h3", "qpack-dynamic", h3_seed(0x18, [], [
        record(5, encoder),
        record(FIN, h3_frame(1, qpack(QPACK_STATUS_200, b"\x80", prefix=b"\x02\x00")))]))
    write("h3", "post", h3_seed(0x1c, [0x14], [
        record(FIN, h3_frame(1, qpack(QPACK_STATUS_200)))]))


# ---- the command's parsers and the state files -----------------------------------

def url_glob_seeds():
    # A cap byte (1 + byte * 8 URLs), then the pattern.
    seeds = {
        "set-and-range": "\xffhttp://{one,two}.example/[1-10:3]?x",
        "letters-width": "\xffhttp://h/[a-e]/[001-012]/{,x}",
        "escapes-ipv6": "\xffhttp://[::1]:8080/\\{lit\\}/[]/{a\\,b,c}",
        "zone-id": "\xffhttp://[fe80::1%25eth0]/[A-C:2]",
        "over-cap": "\x01http://x/[1-100]{a,b}",
        "errors": "\xffhttp://x/{a,{b}}[1-]",
        "no-pattern": "\x00https://example.org/plain?q=1#f",
    }
    for name, text in seeds.items():
        write("url_glob", name, text)


def config_file_seeds():
    write("config_file", "curlrc", (
        "# a comment\n"
        "url = \"https://example.org/a b\"\n"
        "output: out.txt\n"
        "--header \"X-One: 1\\t2\\\"q\\\"\"  # trailing comment\n"
        "-sS\n"
        "\tsilent\n"
        "--progress=line\n"
        "user-agent \"sluice \\\\ test\"\r\n"
        "data=@file\n"))
    write("config_file", "bad-quote", "url = \"https://x\nnext\n")
    write("config_file", "bad-blank", "header X: y\n")
    write("config_file", "no-name", "= value\n")


HSTS_HEAD = "# Your HSTS cache. https://curl.se/docs/hsts.html\n"


def hsts_file_seeds():
    # A store-size byte, a wall-clock byte (* 2^24 s; 0x60: 2021), then the file.
    write("hsts_file", "curl-file", "\x10\x60" + HSTS_HEAD +
          ".example.com \"20991231 23:59:59\"\n"
          "www.Example.ORG. \"20300101 00:00:00\"\n"
          "forever.example unlimited\n"
          "expired.example \"19991231 23:59:59\"\n")
    write("hsts_file", "junk", "\x01\x60" + "127.0.0.1 \"20991231 23:59:59\"\n"
          "bad_host! \"20991231 23:59:59\"\n\"unterminated\n"
          "a.example \"20990231 00:00:00\"\n" "b.example x y\n")


def alt_svc_file_seeds():
    # A cache-size byte, a wall-clock byte (* 2^24 s; 0x60: 2021), then the file.
    write("alt_svc_file", "curl-file", "\x10\x60" +
          "# Your alt-svc cache. https://curl.se/docs/alt-svc.html\n"
          "h2 example.com 443 h3 example.com 443 \"20991231 23:59:59\" 0 0\n"
          "h1 Example.ORG 8443 h3 alt.example.org 9443 \"20350101 00:00:00\" 1 0\n"
          "h2 [2001:db8::1] 443 h3 [2001:db8::2] 443 \"20991231 23:59:59\" 0 0\n")
    write("alt_svc_file", "junk", "\x01\x60" +
          "h2 example.com 443 h2 example.com 443 \"20991231 23:59:59\" 0 0\n"
          "h2 example.com 0 h3 example.com 443 \"20991231 23:59:59\" 0 0\n"
          "h2 example.com 443 h3 example.com 443 \"2099123 23:59:59\" 0 0\n"
          "h3 a:b 443 h3 c 443 \"20991231 23:59:59\" 2 0\n")


def der(tag, body):
    if len(body) < 0x80:
        return bytes([tag, len(body)]) + body
    size = len(body).to_bytes(2, "big")
    return bytes([tag, 0x82]) + size + body


def der_int(n):
    return der(0x02, n.to_bytes((n.bit_length() + 8) // 8, "big"))


def ssl_session_der():
    """A TLS 1.2 session in OpenSSL's SSL_SESSION ASN.1 form, resumable until 2038."""
    body = (der_int(1) + der_int(0x0303) + der(0x04, b"\xc0\x2f") +
            der(0x04, bytes(range(32))) + der(0x04, bytes(48)) +
            der(0xa1, der_int(2**31 - 100000)) + der(0xa2, der_int(7200)))
    return der(0x30, body)


def tls_session_file_seeds():
    # A flags byte (bit 0: adopt QUIC sessions; then the caches' size), then the file.
    session = ssl_session_der().hex()
    write("tls_session_file", "sessions", "\x08" +
          "# sluice TLS sessions (--ssl-sessions).\n"
          "tcp 0123456789abcdef example.org:443 2147400000 " + session + "\n"
          "tcp 0123456789abcdef [::1]:8443 2147400000 " + session + "\n"
          "quic 0123456789abcdef example.org:443 2147400000 00112233 - \n"
          "quic 0123456789abcdef h3.example:443 2147400000 0011 aabb\n"
          "tcp fedcba9876543210 other.example:443 4102444800 " + session + "\n")
    write("tls_session_file", "quic-adopted", "\x09" +
          "quic 0123456789abcdef example.org:443 4102444800 00112233 0102\n"
          "tcp 0123456789abcdef example.org:443 4102444800 zz\n"
          "tcp 0123456789abcdef noport 4102444800 00\n")


def capi_client_options_seeds():
    # Calls: op, row, text length, text, 8-byte number (see the target's header).
    def call(op, row, text=b"", number=0):
        return bytes([op, row, len(text)]) + text + number.to_bytes(8, "little")
    write("capi_client_options", "each-kind",
          call(0, 0, b"/etc/ssl/ca.pem") + call(1, 2, number=1) + call(1, 2, number=2) +
          call(0, 20, b"a.example:443:127.0.0.1") + call(2, 34, b"sluice/1\r\n") +
          call(1, 36, number=0) + call(1, 38, number=2**32) + call(2, 41, number=5) +
          call(3, 0, b"no_such_option") + call(8, 1, b"x") + call(4, 3, b"abc"))


def main():
    # Rewrites the generated seeds; leaves other files (crash-* inputs) alone.
    url_seeds()
    alt_svc_seeds()
    headers_seeds()
    content_disposition_seeds()
    netrc_seeds()
    auth_challenge_seeds()
    download_control_seeds()
    cookie_seeds()
    content_range_seeds()
    http_date_seeds()
    proxy_connect_seeds()
    socks5_handshake_seeds()
    h1_response_seeds()
    content_decoder_seeds()
    h2_session_seeds()
    h3_seeds()
    url_glob_seeds()
    config_file_seeds()
    hsts_file_seeds()
    alt_svc_file_seeds()
    tls_session_file_seeds()
    capi_client_options_seeds()
    print("make_seeds: done;", CORPUS, "holds",
          sum(len(files) for _, _, files in os.walk(CORPUS)), "files")


if __name__ == "__main__":
    main()
