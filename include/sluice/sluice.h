/* sluice.h: the C API of sluice, an HTTP/1.1, HTTP/2 and HTTP/3 client whose body
 * streams obey backpressure end to end. C99; usable through FFI (ctypes, cffi).
 *
 * A thin layer over the C++ API (sluice/sluice.hpp), never a second implementation:
 * the same Client with its one HTTP thread, the same staging buffer and allowance.
 *
 * Conventions
 *  - Handles are opaque and come in pairs: sluice_X_new() / sluice_X_free(). Every
 *    free function accepts NULL. Nothing returned must be freed with anything but a
 *    sluice function.
 *  - Fallible functions return a sluice_code: SLUICE_OK (0), or a small positive
 *    state that is not an error (SLUICE_WOULD_BLOCK), or an error code (100 and up;
 *    the hundreds are the category, as in the C++ sluice::ErrorCode, whose numbers
 *    these are). The message of the last error on the calling thread, one a person
 *    can act on, is sluice_last_error(); the code's name is sluice_code_name().
 *  - Strings go in as a pointer and a length (no terminator needed; an embedded NUL
 *    is refused). Strings and bytes that come out stay valid as the function's
 *    documentation says, usually for the life of the handle they came from.
 *  - A bad argument (a NULL handle or output pointer, a freed handle where that can
 *    be detected, CR or LF in a header value) returns SLUICE_E_INVALID_ARGUMENT or a
 *    usage code, never crashes. No C++ exception ever crosses this API.
 *
 * Threads: a sluice_client may be used from any thread at once. Every other handle
 * belongs to one thread at a time, except the cancel functions, which any thread may
 * call while another thread uses the handle.
 */
#ifndef SLUICE_H
#define SLUICE_H

#include <stddef.h>
#include <stdint.h>

#include "sluice/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SLUICE_VERSION_MAJOR 0
#define SLUICE_VERSION_MINOR 1
#define SLUICE_VERSION_PATCH 0
#define SLUICE_VERSION_STRING "0.1.0"
/* 0xMMmmpp: compare with sluice_version_num() to detect a library/header mismatch. */
#define SLUICE_VERSION_NUM 0x000100

/* The version of the library loaded at run time, as SLUICE_VERSION_STRING and
 * SLUICE_VERSION_NUM give the one compiled against. */
SLUICE_API const char* sluice_version(void);
SLUICE_API unsigned sluice_version_num(void);

typedef enum sluice_code {
  SLUICE_OK = 0,
  /* Not an error: nothing is ready yet (a non-blocking read, a wait that timed out). */
  SLUICE_WOULD_BLOCK = 1,

  SLUICE_E_DNS = 100,             /* the host name did not resolve */
  SLUICE_E_CONNECT = 200,         /* no address accepted a connection */
  SLUICE_E_PROXY_REFUSED = 201,   /* the proxy refused the tunnel or the request */
  SLUICE_E_LOCAL_BIND = 202,      /* the local interface or port could not be used */
  SLUICE_E_PROXY_HANDSHAKE = 203, /* the proxy's handshake broke its protocol (SOCKS5) */
  SLUICE_E_TLS = 300,             /* the TLS handshake or session failed */
  SLUICE_E_TLS_CERTIFICATE = 301, /* the certificate was not trusted for the host */
  SLUICE_E_TLS_CA_FILE = 302,     /* the CA file could not be read or held no certificate */
  SLUICE_E_TLS_PINNED_KEY = 303,  /* the server's key matched none of the pinned keys */
  SLUICE_E_PROTOCOL = 400,        /* the server broke HTTP */
  SLUICE_E_BODY_TRUNCATED = 401,  /* the body ended before its end */
  SLUICE_E_EMPTY_REPLY = 402,     /* the connection closed before any response byte */
  SLUICE_E_HTTP2_FRAMING = 403,   /* the HTTP/2 framing layer failed */
  SLUICE_E_HTTP3 = 404,           /* the HTTP/3 layer failed */
  SLUICE_E_TIMEOUT = 500,
  SLUICE_E_CONNECT_TIMEOUT = 501,
  SLUICE_E_FIRST_BYTE_TIMEOUT = 502,
  SLUICE_E_IDLE_TIMEOUT = 503,
  SLUICE_E_TOTAL_TIMEOUT = 504,
  SLUICE_E_PING_TIMEOUT = 505,
  SLUICE_E_HANDSHAKE_TIMEOUT = 506,
  SLUICE_E_DNS_TIMEOUT = 507, /* no answer from the name servers within the DNS timeout */
  SLUICE_E_LOW_SPEED = 508,   /* slower than the low-speed limit for its whole time */
  SLUICE_E_CANCELLED = 600,
  SLUICE_E_TOO_LARGE = 700,
  SLUICE_E_TOO_MANY_REDIRECTS = 701,
  SLUICE_E_HEADERS_TOO_LARGE = 702,
  SLUICE_E_DECODED_TOO_LARGE = 703,
  SLUICE_E_BODY_TOO_LARGE = 704,
  SLUICE_E_DECODE = 800,
  SLUICE_E_IO = 900,
  SLUICE_E_OUT_OF_MEMORY = 901,
  SLUICE_E_SEND = 902,    /* a socket's send failed (the peer reset or closed it) */
  SLUICE_E_RECEIVE = 903, /* a socket's receive failed (the peer reset it) */
  SLUICE_E_USAGE = 1000,  /* the caller asked for something invalid */
  SLUICE_E_BAD_URL = 1001,
  SLUICE_E_INVALID_ARGUMENT = 1002, /* NULL, freed or out-of-range argument */
  SLUICE_E_HTTP_STATUS = 1100,
  SLUICE_E_REDIRECT_REFUSED = 1101,  /* a redirect where the request refused them */
  SLUICE_E_INSECURE_REDIRECT = 1102, /* a redirect from https to http, not allowed */
  SLUICE_CODE_MAX_ = 0x7fffffff      /* not a code: see SLUICE_VERSION_POLICY_MAX_ */
} sluice_code;

/* "idle_timeout", "ok", "would_block"; "unknown" for a number that is no code. */
SLUICE_API const char* sluice_code_name(int code);
/* "timeout", "tls", ...: the code's category (its hundreds); "" for OK and states. */
SLUICE_API const char* sluice_category_name(int code);
/* The message of the last error returned to this thread ("" if none yet). Valid
 * until this thread's next sluice call. */
SLUICE_API const char* sluice_last_error(void);

/* ---- Client options ------------------------------------------------------------ */

typedef struct sluice_client_options sluice_client_options;

SLUICE_API sluice_code sluice_client_options_new(sluice_client_options** out);
SLUICE_API void sluice_client_options_free(sluice_client_options* options);
/* A PEM bundle to trust instead of the system store (curl's --cacert). */
SLUICE_API sluice_code sluice_client_options_set_ca_file(sluice_client_options* options,
                                                         const char* path, size_t path_len);
/* Non-zero: skip certificate and host verification (-k). Never the default. */
SLUICE_API sluice_code sluice_client_options_set_insecure(sluice_client_options* options,
                                                          int insecure);
/* TLS (ClientOptions' TLS options; see sluice/client_options.hpp). Files are read by
 * sluice_client_new, which fails naming the file: SLUICE_E_USAGE for a missing or
 * unreadable certificate or key, a wrong passphrase, a bad pin or cipher list.
 * client_cert: PEM certificate (chain), with the key too unless client_key names it;
 * key_password: the key's passphrase; ca_path: a directory of hashed CA certificates;
 * pinned_public_key: "sha256//BASE64[;sha256//...]" or a public key file;
 * key_log_file: NSS key log (else $SSLKEYLOGFILE). */
SLUICE_API sluice_code sluice_client_options_set_client_cert(sluice_client_options* options,
                                                             const char* path, size_t len);
SLUICE_API sluice_code sluice_client_options_set_client_key(sluice_client_options* options,
                                                            const char* path, size_t len);
SLUICE_API sluice_code sluice_client_options_set_key_password(sluice_client_options* options,
                                                              const char* password, size_t len);
SLUICE_API sluice_code sluice_client_options_set_ca_path(sluice_client_options* options,
                                                         const char* path, size_t len);
SLUICE_API sluice_code sluice_client_options_set_pinned_public_key(sluice_client_options* options,
                                                                   const char* pins, size_t len);
SLUICE_API sluice_code sluice_client_options_set_tls12_ciphers(sluice_client_options* options,
                                                               const char* list, size_t len);
SLUICE_API sluice_code sluice_client_options_set_tls13_ciphers(sluice_client_options* options,
                                                               const char* list, size_t len);
SLUICE_API sluice_code sluice_client_options_set_key_log_file(sluice_client_options* options,
                                                              const char* path, size_t len);
/* TLS versions offered: SLUICE_TLS_1_2 or SLUICE_TLS_1_3 for each bound (min <= max);
 * other values are SLUICE_E_INVALID_ARGUMENT. A maximum of 1.2 rules out HTTP/3. */
typedef enum sluice_tls_version { SLUICE_TLS_1_2 = 12, SLUICE_TLS_1_3 = 13 } sluice_tls_version;
SLUICE_API sluice_code sluice_client_options_set_tls_versions(sluice_client_options* options,
                                                              int min, int max);
/* Non-zero (the default): resume TLS sessions per origin; 0 is curl's --no-sessionid. */
SLUICE_API sluice_code sluice_client_options_set_tls_session_cache(sluice_client_options* options,
                                                                   int enabled);
/* Non-zero: send GET, HEAD and OPTIONS requests without a body as 0-RTT early data on
 * a resumed HTTP/3 connection (curl's --tls-earlydata; off by default). */
SLUICE_API sluice_code sluice_client_options_set_tls_early_data(sluice_client_options* options,
                                                                int enabled);
/* Proxies (ClientOptions::proxy): an http:// proxy URL, credentials in
 * it or set apart ("user:password", not %-encoded), hosts reached directly (curl's
 * NO_PROXY syntax), whether to read the environment as curl does (off by default),
 * and whether http:// also tunnels. A proxy URL that does not parse, or one of
 * another scheme, fails sluice_client_new with SLUICE_E_USAGE. */
SLUICE_API sluice_code sluice_client_options_set_proxy(sluice_client_options* options,
                                                       const char* url, size_t len);
SLUICE_API sluice_code sluice_client_options_set_proxy_user(sluice_client_options* options,
                                                            const char* user_password, size_t len);
SLUICE_API sluice_code sluice_client_options_set_no_proxy(sluice_client_options* options,
                                                          const char* list, size_t len);
SLUICE_API sluice_code
sluice_client_options_set_proxy_from_environment(sluice_client_options* options, int enabled);
SLUICE_API sluice_code sluice_client_options_set_proxy_tunnel(sluice_client_options* options,
                                                              int enabled);
/* An https:// proxy's certificate: trusted against this PEM bundle instead of the
 * system store (curl's --proxy-cacert), or not checked at all (--proxy-insecure). */
SLUICE_API sluice_code sluice_client_options_set_proxy_ca_file(sluice_client_options* options,
                                                               const char* path, size_t len);
SLUICE_API sluice_code sluice_client_options_set_proxy_insecure(sluice_client_options* options,
                                                                int insecure);
/* Credentials from a netrc file (ClientOptions::netrc; curl's -n, --netrc-optional,
 * --netrc-file) for requests that carry none: OFF (the default), OPTIONAL (the URL's
 * credentials first; a missing file is ignored), REQUIRED (the URL's password is
 * ignored; a missing `file` is an error). `file` empty (len 0): $HOME/.netrc. Read by
 * sluice_client_new, which fails naming the file and line of a malformed one. */
typedef enum sluice_netrc_mode {
  SLUICE_NETRC_OFF = 0,
  SLUICE_NETRC_OPTIONAL = 1,
  SLUICE_NETRC_REQUIRED = 2,
  SLUICE_NETRC_MODE_MAX_ = 0x7fffffff
} sluice_netrc_mode;
SLUICE_API sluice_code sluice_client_options_set_netrc(sluice_client_options* options,
                                                       sluice_netrc_mode mode, const char* file,
                                                       size_t file_len);
/* Names and routes (ClientOptions::routing.ip_version and the rest; curl's -4/-6, --resolve,
 * --connect-to, --unix-socket, --dns-servers, --happy-eyeballs-timeout-ms).
 * `version`: 0 (any), 4 or 6. The add_ calls append one entry each
 * ("host:port:addr[,addr]", "host:port:connect_host:connect_port"). A malformed entry
 * fails sluice_client_new with SLUICE_E_USAGE naming it. Times in milliseconds;
 * dns_timeout 0 leaves DNS bounded by the connect timeout only. */
SLUICE_API sluice_code sluice_client_options_set_ip_version(sluice_client_options* options,
                                                            int version);
SLUICE_API sluice_code sluice_client_options_add_resolve(sluice_client_options* options,
                                                         const char* entry, size_t len);
SLUICE_API sluice_code sluice_client_options_add_connect_to(sluice_client_options* options,
                                                            const char* entry, size_t len);
SLUICE_API sluice_code sluice_client_options_set_unix_socket(sluice_client_options* options,
                                                             const char* path, size_t len);
SLUICE_API sluice_code sluice_client_options_set_dns_servers(sluice_client_options* options,
                                                             const char* list, size_t len);
SLUICE_API sluice_code sluice_client_options_set_dns_timeout_ms(sluice_client_options* options,
                                                                uint32_t ms);
SLUICE_API sluice_code
sluice_client_options_set_happy_eyeballs_delay_ms(sluice_client_options* options, uint32_t ms);
/* One connect attempt's bound before the next address is tried (default 10000). */
SLUICE_API sluice_code
sluice_client_options_set_connect_attempt_timeout_ms(sluice_client_options* options, uint32_t ms);
/* DNS answers are reused for their TTL but at most this long (default 60; 0: no cache). */
SLUICE_API sluice_code sluice_client_options_set_dns_cache_ttl_s(sluice_client_options* options,
                                                                 uint32_t seconds);
/* Where connections leave from (curl's --interface and --local-port): an interface
 * name or local IP address, and the first free port of port .. port + range - 1
 * (port 0: any; range at least 1). An interface that does not exist fails
 * sluice_client_new with SLUICE_E_LOCAL_BIND; one without an address of the family,
 * or no free port, fails the request with it. */
SLUICE_API sluice_code sluice_client_options_set_interface(sluice_client_options* options,
                                                           const char* interface_name, size_t len);
SLUICE_API sluice_code sluice_client_options_set_local_port(sluice_client_options* options,
                                                            uint16_t port, uint16_t range);
SLUICE_API sluice_code sluice_client_options_set_user_agent(sluice_client_options* options,
                                                            const char* user_agent, size_t len);
SLUICE_API sluice_code
sluice_client_options_set_max_connections_per_origin(sluice_client_options* options, size_t count);
/* Owned request bodies (set_body_bytes) not yet taken whole by a transport (0: no
 * bound; default 32 MiB): a send waits while more would pass it and the transports
 * are taking them (at most a second without progress), except on the client's HTTP
 * thread and with host dispatch. A body larger than the bound goes alone. */
SLUICE_API sluice_code sluice_client_options_set_owned_upload_budget(sluice_client_options* options,
                                                                     size_t bytes);
/* Bytes staged for readers across every response (0: no bound). */
SLUICE_API sluice_code sluice_client_options_set_staged_bytes_budget(sluice_client_options* options,
                                                                     size_t bytes);
SLUICE_API sluice_code
sluice_client_options_set_pool_idle_timeout_ms(sluice_client_options* options, uint32_t ms);
/* Copies larger than this are freed by the thread that finished with them (default
 * 512 KiB; 0: every copy). */
SLUICE_API sluice_code sluice_client_options_set_release_threshold(sluice_client_options* options,
                                                                   size_t bytes);
/* How often the HTTP thread frees the empty scratch of paused readers (default 4000,
 * at least 1). */
SLUICE_API sluice_code sluice_client_options_set_sweep_interval_ms(sluice_client_options* options,
                                                                   uint32_t ms);
/* Threads that read upload files and write downloads (default 2, at least 1). */
SLUICE_API sluice_code sluice_client_options_set_file_threads(sluice_client_options* options,
                                                              size_t count);
/* curl's --speed-limit / --speed-time (ClientOptions::low_speed): a transfer that
 * moves fewer than `bytes` a second (averaged over the last 5 s) for `seconds` in a
 * row fails with SLUICE_E_LOW_SPEED. 0 bytes (the default): no limit; seconds
 * default 30. */
SLUICE_API sluice_code sluice_client_options_set_low_speed_limit(sluice_client_options* options,
                                                                 size_t bytes);
SLUICE_API sluice_code sluice_client_options_set_low_speed_time_s(sluice_client_options* options,
                                                                  uint32_t seconds);
/* State kept in files between runs (ClientOptions::state): the Alt-Svc cache and HSTS
 * (on/off, and its file, which turns it on) in curl's formats, and TLS session tickets
 * (mode 0600) in sluice's own; read by sluice_client_new, written by
 * sluice_client_save_state and sluice_client_free. Empty: not read or written. */
SLUICE_API sluice_code sluice_client_options_set_alt_svc_file(sluice_client_options* options,
                                                              const char* path, size_t len);
SLUICE_API sluice_code sluice_client_options_set_hsts(sluice_client_options* options, int enabled);
SLUICE_API sluice_code sluice_client_options_set_hsts_file(sluice_client_options* options,
                                                           const char* path, size_t len);
SLUICE_API sluice_code sluice_client_options_set_tls_session_file(sluice_client_options* options,
                                                                  const char* path, size_t len);
/* HTTP/3 that may fall back to TCP does so when QUIC's handshake took longer than
 * http3_fallback_after (default 1000); the origin's HTTP/3 is then not tried for
 * http3_broken_for (default 300000). */
SLUICE_API sluice_code
sluice_client_options_set_http3_fallback_after_ms(sluice_client_options* options, uint32_t ms);
SLUICE_API sluice_code sluice_client_options_set_http3_broken_for_ms(sluice_client_options* options,
                                                                     uint32_t ms);
/* Tracing: `trace` is called on the HTTP thread with one line per notable event (not
 * NUL-terminated: use `len`). It must return quickly and not call into the client. */
typedef void (*sluice_trace_cb)(void* user_data, const char* line, size_t len);
SLUICE_API sluice_code sluice_client_options_set_trace(sluice_client_options* options,
                                                       sluice_trace_cb trace, void* user_data);

/* Non-zero: host dispatch, for embedding in another event loop. The client never
 * runs a callback on its HTTP thread: callbacks (responses, body data and end,
 * writable, trace) wait until the host's loop sees sluice_client_dispatch_fd()
 * readable and calls sluice_client_dispatch(), which runs them on its thread. A body
 * chunk not yet handed to on_data stays staged, so its stream holds at its allowance. */
SLUICE_API sluice_code sluice_client_options_set_host_dispatch(sluice_client_options* options,
                                                               int enabled);

/* ---- Client options by name ----------------------------------------------------- */

/* Every client option that takes one value is also in a table a program (a binding,
 * a configuration file reader) walks and sets by name: the name is the C API's, as
 * its setter is named ("pool_idle_timeout" sets ClientOptions' pool.idle_timeout,
 * "resolve" routing.resolve), the kind says which setter takes it and what its
 * number means. */
typedef enum sluice_option_kind {
  SLUICE_OPTION_TEXT = 1,         /* sluice_client_options_set_text */
  SLUICE_OPTION_TEXT_LIST = 2,    /* sluice_client_options_set_text, once per entry */
  SLUICE_OPTION_FLAG = 3,         /* sluice_client_options_set_number: 0 or 1 */
  SLUICE_OPTION_COUNT = 4,        /* sluice_client_options_set_number */
  SLUICE_OPTION_MILLISECONDS = 5, /* sluice_client_options_set_number, at most UINT32_MAX */
  SLUICE_OPTION_SECONDS = 6,      /* sluice_client_options_set_number, at most UINT32_MAX */
  SLUICE_OPTION_KIND_MAX_ = 0x7fffffff
} sluice_option_kind;
typedef struct sluice_option_info {
  const char* name; /* the C API's name of the option */
  sluice_option_kind kind;
  const char* help; /* one line */
  /* The C++ ClientOptions member it sets, with its group before a dot:
   * "tls.session_cache", "proxy.url", or "user_agent" for one beside the groups
   * (tls, proxy, routing, pool, memory, low_speed, state). A binding that groups options as the C++
   * API does (Python's tls={...}) reads its groups here. */
  const char* field;
} sluice_option_info;
/* The first option (previous NULL), the one after `previous`, or NULL after the last.
 * The entries live as long as the library. */
SLUICE_API const sluice_option_info* sluice_client_option_next(const sluice_option_info* previous);
/* The option named `name` (NUL-terminated), or NULL. */
SLUICE_API const sluice_option_info* sluice_client_option_by_name(const char* name);
/* Sets a TEXT option, or appends one entry to a TEXT_LIST one. An unknown name, an
 * option of another kind, a NULL value or one holding a NUL byte is
 * SLUICE_E_INVALID_ARGUMENT, saying which. */
SLUICE_API sluice_code sluice_client_options_set_text(sluice_client_options* options,
                                                      const char* name, const char* value,
                                                      size_t len);
/* Sets a FLAG, COUNT, MILLISECONDS or SECONDS option; out of its range is
 * SLUICE_E_INVALID_ARGUMENT. */
SLUICE_API sluice_code sluice_client_options_set_number(sluice_client_options* options,
                                                        const char* name, uint64_t value);

/* ---- Cookies ------------------------------------------------------------------- */

/* A cookie jar (sluice::CookieJar, RFC 6265bis): given to client options, the
 * clients send its cookies with every request and redirect hop and store every
 * response's Set-Cookie. Several clients may share one jar, on any threads; the
 * jar functions below are for one thread at a time. A client keeps the jar alive on
 * its own, so the handle may be freed while clients still use it. */
typedef struct sluice_cookie_jar sluice_cookie_jar;

SLUICE_API sluice_code sluice_cookie_jar_new(sluice_cookie_jar** out);
SLUICE_API void sluice_cookie_jar_free(sluice_cookie_jar* jar);
/* Adds the cookies of a Netscape cookie file (curl's -b FILE; curl's format, or
 * "Set-Cookie:" lines). Non-zero `drop_session` leaves out cookies without an expiry
 * (curl's -j). An unreadable file fails with SLUICE_E_IO naming it. */
SLUICE_API sluice_code sluice_cookie_jar_load(sluice_cookie_jar* jar, const char* path,
                                              size_t path_len, int drop_session);
/* Writes every cookie to `path` in the Netscape format curl writes (-c FILE),
 * through a temporary file renamed over it. */
SLUICE_API sluice_code sluice_cookie_jar_save(sluice_cookie_jar* jar, const char* path,
                                              size_t path_len);
/* The Cookie header value the jar gives a request to `url` ("" when none): `*out`
 * stays valid until the next call with this jar. */
SLUICE_API sluice_code sluice_cookie_jar_header(sluice_cookie_jar* jar, const char* url,
                                                size_t url_len, const char** out, size_t* out_len);
/* How many cookies the jar holds (expired ones not counted); 0 for a bad handle. */
SLUICE_API size_t sluice_cookie_jar_count(const sluice_cookie_jar* jar);
/* Turns the cookie engine on with `jar`, or off with NULL (the default). */
SLUICE_API sluice_code sluice_client_options_set_cookie_jar(sluice_client_options* options,
                                                            sluice_cookie_jar* jar);

/* ---- Client --------------------------------------------------------------------- */

typedef struct sluice_client sluice_client;

/* Starts the client's HTTP thread. `options` may be NULL (defaults) and may be freed
 * right after. Fails (SLUICE_E_USAGE, SLUICE_E_IO) when an option is unusable. */
SLUICE_API sluice_code sluice_client_new(const sluice_client_options* options, sluice_client** out);
/* Cancels what is in flight and joins the client's threads. Responses and pending
 * requests of it stay valid handles (free them too); their reads then fail with
 * SLUICE_E_CANCELLED. Never call it from a callback the client runs. */
SLUICE_API void sluice_client_free(sluice_client* client);

typedef struct sluice_client_stats {
  size_t in_flight;        /* requests not yet ended */
  size_t paused_receivers; /* of those, held at their allowance */
  size_t staged_bytes;     /* body bytes waiting for readers */
  size_t retained_scratch_bytes;
  size_t request_body_bytes_held;
  size_t connections;
  uint64_t sweep_releases;
  uint64_t sweep_bytes_released;
  uint64_t budget_waits;
  size_t allowance_bytes;
  uint64_t dns_queries;              /* names asked of DNS (or /etc/hosts) */
  uint64_t dns_cache_hits;           /* lookups the DNS cache answered */
  uint64_t tls_full_handshakes;      /* TLS handshakes over TCP: full ones, */
  uint64_t tls_resumed_handshakes;   /* and those that resumed a cached session */
  uint64_t tls_handshake_cpu_ns;     /* CPU spent in them (ns) */
  uint64_t quic_full_handshakes;     /* QUIC (HTTP/3) handshakes: full ones, */
  uint64_t quic_resumed_handshakes;  /* and those that resumed a session ticket */
  uint64_t quic_early_data_accepted; /* QUIC connections whose 0-RTT data was taken, */
  uint64_t quic_early_data_rejected; /* and refused (the requests went again) */
  uint64_t quic_early_requests;      /* requests sent as 0-RTT early data */
  size_t owned_upload_bytes;         /* owned request bodies no transport took whole yet */
  uint64_t owned_upload_waits;       /* sends that waited for owned_upload_budget */
} sluice_client_stats;
/* A snapshot taken on the HTTP thread (waits for it). `out_size`: sizeof *out, so a
 * program built against an older header gets the fields it knows. */
SLUICE_API sluice_code sluice_client_get_stats(sluice_client* client, sluice_client_stats* out,
                                               size_t out_size);

/* Writes the state files the options named, now (each replaced whole); SLUICE_E_IO
 * names a file that could not be written. sluice_client_free writes them too. */
SLUICE_API sluice_code sluice_client_save_state(sluice_client* client);

/* With host dispatch: a file descriptor, readable while callbacks wait; add it to
 * the host's loop for reading and never close it. -1 without host dispatch or for a
 * bad handle. */
SLUICE_API int sluice_client_dispatch_fd(const sluice_client* client);
/* With host dispatch: runs the waiting callbacks on this thread; *ran (may be NULL)
 * says how many. Call it from one thread at a time. When the client is freed, the
 * callbacks still waiting run in sluice_client_free, so each fires once. */
SLUICE_API sluice_code sluice_client_dispatch(sluice_client* client, size_t* ran);

/* ---- Requests ------------------------------------------------------------------- */

typedef struct sluice_request sluice_request;
typedef struct sluice_body_writer sluice_body_writer;

typedef enum sluice_version_policy {
  SLUICE_VERSION_AUTOMATIC = 0, /* ALPN picks h2 or http/1.1 over TLS; h1 on plain TCP;
                                    h3 once an origin announced it in Alt-Svc */
  SLUICE_VERSION_HTTP1_ONLY = 1,
  SLUICE_VERSION_HTTP2 = 2, /* as automatic, but never h3 */
  SLUICE_VERSION_HTTP2_PRIOR_KNOWLEDGE = 3,
  SLUICE_VERSION_HTTP3 = 4, /* HTTP/3 first, TCP when QUIC fails */
  SLUICE_VERSION_HTTP3_ONLY = 5,
  SLUICE_VERSION_HTTP1_0 = 6, /* HTTP/1.0 on the request line; never h2 or h3 */
  /* Not a policy: makes the type as wide as int, so that any int a caller (or an FFI)
   * passes is a value of it and can be refused, as for every enum below. */
  SLUICE_VERSION_POLICY_MAX_ = 0x7fffffff
} sluice_version_policy;

typedef enum sluice_timeout {
  SLUICE_TIMEOUT_CONNECT = 0,
  SLUICE_TIMEOUT_TLS = 1,
  SLUICE_TIMEOUT_FIRST_BYTE = 2,
  SLUICE_TIMEOUT_IDLE = 3,
  SLUICE_TIMEOUT_TOTAL = 4,
  SLUICE_TIMEOUT_MAX_ = 0x7fffffff /* not a timeout: see SLUICE_VERSION_POLICY_MAX_ */
} sluice_timeout;

/* A GET-less request: method and URL. The URL is checked when the request is sent
 * (SLUICE_E_BAD_URL then); the method must be an HTTP token. */
SLUICE_API sluice_code sluice_request_new(const char* method, size_t method_len, const char* url,
                                          size_t url_len, sluice_request** out);
SLUICE_API void sluice_request_free(sluice_request* request);
/* Appends a header (repeats allowed, order kept, the name as given). A name that is
 * not a token, or a value with CR, LF or NUL, is refused (SLUICE_E_USAGE). */
SLUICE_API sluice_code sluice_request_add_header(sluice_request* request, const char* name,
                                                 size_t name_len, const char* value,
                                                 size_t value_len);
/* The body: a copy of `len` bytes, freed by the HTTP thread once sent when large. */
SLUICE_API sluice_code sluice_request_set_body_bytes(sluice_request* request, const void* data,
                                                     size_t len);
/* The body: `len` bytes at `data`, lent. The library reads them where they are and never
 * copies them whole. They must stay valid and unchanged until release(user_data) runs,
 * once, when nothing needs them any more: the request handle is freed or given another
 * body, and every exchange sent with it let go of them. An exchange lets go after its
 * last byte went out when the body is over the client's release threshold (then a
 * redirect or an authentication retry cannot send it again), else when it ends. With
 * host dispatch release runs in sluice_client_dispatch() (once the client is freed:
 * where the last hold ends); without, possibly on the HTTP thread: it must not block.
 * `release` may be NULL (bytes that outlive everything). */
typedef void (*sluice_release_cb)(void* user_data);
SLUICE_API sluice_code sluice_request_set_body_lent(sluice_request* request, const void* data,
                                                    size_t len, sluice_release_cb release,
                                                    void* user_data);
/* The body: a file, read on the client's file threads, never loaded whole. */
SLUICE_API sluice_code sluice_request_set_body_file(sluice_request* request, const char* path,
                                                    size_t path_len);
/* The body: streamed through `writer` while the request runs (the request keeps its
 * own reference; free yours when done writing). `length` < 0: unknown (HTTP/1.1
 * chunked); otherwise Content-Length, and closing short is an error. */
SLUICE_API sluice_code sluice_request_set_body_writer(sluice_request* request,
                                                      sluice_body_writer* writer, int64_t length);
/* The body: a multipart/form-data form (curl's -F), built one part at a time. The
 * first call makes the body a form and sets Content-Type (with its boundary) unless
 * the request has one; a later set_body_* call replaces the form. A text field: */
SLUICE_API sluice_code sluice_request_add_form_field(sluice_request* request, const char* name,
                                                     size_t name_len, const char* value,
                                                     size_t value_len);
/* A file part, read on the client's file threads while the request is sent, never
 * loaded whole. `filename` NULL: the path's last component; `content_type` NULL:
 * guessed from the file name (application/octet-stream when unknown). A missing
 * file fails the request (SLUICE_E_IO), naming it. */
SLUICE_API sluice_code sluice_request_add_form_file(sluice_request* request, const char* name,
                                                    size_t name_len, const char* path,
                                                    size_t path_len, const char* filename,
                                                    size_t filename_len, const char* content_type,
                                                    size_t content_type_len);
SLUICE_API sluice_code sluice_request_set_version(sluice_request* request,
                                                  sluice_version_policy policy);
/* The response's allowance (Request::allowance): bytes that may wait for a reader
 * that has not taken them. It starts at `initial_bytes` (an unread body holds about
 * that much) and grows while the reader keeps up, up to `max_bytes`. Both at least
 * 1, and initial_bytes <= max_bytes; equal values fix it. Defaults: 64 KiB, 32 MiB. */
SLUICE_API sluice_code sluice_request_set_allowance(sluice_request* request, size_t initial_bytes,
                                                    size_t max_bytes);
/* Authentication (curl's -u and --oauth2-bearer; Request::auth): sent as Authorization
 * to the request's origin only. A user with ':' or a token with characters RFC 6750
 * does not allow fails the request with SLUICE_E_USAGE. */
SLUICE_API sluice_code sluice_request_set_basic_auth(sluice_request* request, const char* user,
                                                     size_t user_len, const char* password,
                                                     size_t password_len);
SLUICE_API sluice_code sluice_request_set_bearer_token(sluice_request* request, const char* token,
                                                       size_t len);
/* HTTP Digest (RFC 7616; curl's --digest) and the strongest scheme the server offers
 * (curl's --anyauth: Digest, else Basic): the request goes without credentials
 * first and answers the server's 401 once; a second 401 is the response. A body
 * set with sluice_request_set_body_writer that was already sent cannot go again:
 * the request then fails with SLUICE_E_USAGE. Empty user and password: the URL's or
 * the netrc file's. */
SLUICE_API sluice_code sluice_request_set_digest_auth(sluice_request* request, const char* user,
                                                      size_t user_len, const char* password,
                                                      size_t password_len);
SLUICE_API sluice_code sluice_request_set_any_auth(sluice_request* request, const char* user,
                                                   size_t user_len, const char* password,
                                                   size_t password_len);
/* AWS Signature Version 4 (curl's --aws-sigv4; Authentication::aws_sigv4): every hop is
 * signed for its own host, path and time with the access key and secret key. `scope`
 * is "provider1[:provider2[:region[:service]]]" ("aws:amz:us-east-1:s3"); a service
 * and region not given are the host name's first two labels. A body set with
 * sluice_request_set_body_bytes is hashed; a file, writer or form body is signed as
 * UNSIGNED-PAYLOAD. A session token goes as an X-Amz-Security-Token header. A scope
 * the host cannot complete, or an empty access key (and none in the URL or the
 * netrc file), fails the request with SLUICE_E_USAGE. */
SLUICE_API sluice_code sluice_request_set_aws_sigv4(sluice_request* request, const char* access_key,
                                                    size_t access_key_len, const char* secret_key,
                                                    size_t secret_key_len, const char* scope,
                                                    size_t scope_len);
/* 0 ms: no such timeout. */
SLUICE_API sluice_code sluice_request_set_timeout_ms(sluice_request* request, sluice_timeout which,
                                                     uint32_t ms);
/* What a redirect does, as fetch's `redirect` option says it. */
typedef enum sluice_redirect_mode {
  SLUICE_REDIRECT_MANUAL = 0,            /* the 3xx is the response (the default, as curl) */
  SLUICE_REDIRECT_FOLLOW = 1,            /* follow up to max_redirects (curl's -L) */
  SLUICE_REDIRECT_ERROR = 2,             /* a redirect fails with SLUICE_E_REDIRECT_REFUSED */
  SLUICE_REDIRECT_MODE_MAX_ = 0x7fffffff /* not a mode: see SLUICE_VERSION_POLICY_MAX_ */
} sluice_redirect_mode;
SLUICE_API sluice_code sluice_request_set_redirects(sluice_request* request,
                                                    sluice_redirect_mode mode, int max_redirects);
/* What a followed redirect may do, beyond the mode (flags, or'ed). */
typedef enum sluice_redirect_rule {
  /* Follow an https URL to an http one (refused by default: SLUICE_E_INSECURE_REDIRECT). */
  SLUICE_REDIRECT_ALLOW_HTTPS_TO_HTTP = 1,
  /* A 307 or 308 fails for a body from a sluice_body_writer even when none of it was
   * sent yet (the fetch standard's rule for a body it cannot read again). */
  SLUICE_REDIRECT_NEVER_RESEND_STREAM = 2,
  /* Keep the request body until the exchange ends, past the release threshold, so a
   * 307 or 308 (or an authentication retry) can send it again; a lent body is then
   * released when the exchange ends, not after its last byte. */
  SLUICE_REDIRECT_KEEP_BODY = 4,
  SLUICE_REDIRECT_RULE_MAX_ = 0x7fffffff /* not a rule: see SLUICE_VERSION_POLICY_MAX_ */
} sluice_redirect_rule;
/* `rules`: sluice_redirect_rule flags; `refused_ports` (`n_ports` of them, NULL when
 * 0): ports a redirect may not lead to; such a hop fails with
 * SLUICE_E_REDIRECT_REFUSED before anything connects (fetch's bad ports). Replaces
 * what an earlier call set. An unknown flag is SLUICE_E_INVALID_ARGUMENT. */
SLUICE_API sluice_code sluice_request_set_redirect_rules(sluice_request* request, unsigned rules,
                                                         const uint16_t* refused_ports,
                                                         size_t n_ports);
/* Non-zero: send Accept-Encoding and decode gzip, deflate, br, zstd (--compressed). */
SLUICE_API sluice_code sluice_request_set_decode(sluice_request* request, int enabled);
/* A response body longer than this fails with SLUICE_E_BODY_TOO_LARGE; 0: no limit. */
SLUICE_API sluice_code sluice_request_set_max_body_size(sluice_request* request, uint64_t bytes);

/* ---- Streaming request bodies ---------------------------------------------------- */

/* `mark`: bytes the writer may run ahead of the network before a write waits. */
SLUICE_API sluice_code sluice_body_writer_new(size_t mark, sluice_body_writer** out);
SLUICE_API void sluice_body_writer_free(sluice_body_writer* writer);
/* Copies the bytes in, waiting while the queue is at or above the mark. Fails when
 * the request ended (cancelled, failed, the server stopped reading). */
SLUICE_API sluice_code sluice_body_writer_write(sluice_body_writer* writer, const void* data,
                                                size_t len);
/* Like write, but gives up after timeout_ms: SLUICE_WOULD_BLOCK, nothing written. */
SLUICE_API sluice_code sluice_body_writer_write_timeout(sluice_body_writer* writer,
                                                        const void* data, size_t len,
                                                        uint32_t timeout_ms);
/* Calls `ready` once when the writer may write again (below its mark), or when the
 * request ended (then the next write fails and says why): on the HTTP thread, or in
 * sluice_client_dispatch() with host dispatch. It must not block. */
typedef void (*sluice_writable_cb)(void* user_data);
SLUICE_API sluice_code sluice_body_writer_when_writable(sluice_body_writer* writer,
                                                        sluice_writable_cb ready, void* user_data);
/* Ends the body. */
SLUICE_API sluice_code sluice_body_writer_close(sluice_body_writer* writer);
/* Fails the request with `reason`. */
SLUICE_API sluice_code sluice_body_writer_abort(sluice_body_writer* writer, const char* reason,
                                                size_t reason_len);

/* ---- Sending and responses -------------------------------------------------------- */

typedef struct sluice_pending sluice_pending;
typedef struct sluice_response sluice_response;

/* Starts a request (the request is copied: free or reuse it at once). Never blocks
 * on the network. */
SLUICE_API sluice_code sluice_client_send(sluice_client* client, const sluice_request* request,
                                          sluice_pending** out);
/* Waits until the response head arrives or the request fails. Once it returned a
 * response, call it no more; the pending handle can still cancel the body. */
SLUICE_API sluice_code sluice_pending_wait(sluice_pending* pending, sluice_response** out);
/* Like wait, but SLUICE_WOULD_BLOCK when nothing was decided within timeout_ms
 * (0: only look). */
SLUICE_API sluice_code sluice_pending_wait_timeout(sluice_pending* pending, uint32_t timeout_ms,
                                                   sluice_response** out);
/* Any thread, idempotent, at any stage (before the head, mid-body, mid-upload): a wait
 * or callback not yet answered fails with SLUICE_E_CANCELLED; a body under way
 * returns what was staged, then fails with it. `reason` (may be NULL with length 0)
 * ends the error's message: "request cancelled: <reason>". */
SLUICE_API sluice_code sluice_pending_cancel(sluice_pending* pending, const char* reason,
                                             size_t reason_len);
/* Freeing a pending request nobody waited for cancels it. */
SLUICE_API void sluice_pending_free(sluice_pending* pending);

/* The response callback: `code` SLUICE_OK with a response the callee owns (free it
 * with sluice_response_free), or an error with `response` NULL and the message in
 * sluice_last_error() during the call. Runs once, on the HTTP thread (it must not
 * block, nor free the client), or in sluice_client_dispatch() with host dispatch. */
typedef void (*sluice_response_cb)(void* user_data, sluice_code code, sluice_response* response);
/* Starts a request whose response goes to `done`. *out (may be NULL) is a handle
 * for sluice_pending_cancel only (waits on it are refused); free it when done. */
SLUICE_API sluice_code sluice_client_send_cb(sluice_client* client, const sluice_request* request,
                                             sluice_response_cb done, void* user_data,
                                             sluice_pending** out);

/* send + wait. */
SLUICE_API sluice_code sluice_client_fetch(sluice_client* client, const sluice_request* request,
                                           sluice_response** out);

/* Freeing a response with its body unread: a body within its allowance completes and its
 * connection is reused; a longer one closes the connection. */
SLUICE_API void sluice_response_free(sluice_response* response);
SLUICE_API int sluice_response_status(const sluice_response* response);
/* 10 for HTTP/1.0, 11 for HTTP/1.1, 20 for HTTP/2, 30 for HTTP/3; 0 for a bad handle. */
SLUICE_API int sluice_response_http_version(const sluice_response* response);
/* The URL after redirects, and how many were followed. */
SLUICE_API sluice_code sluice_response_effective_url(const sluice_response* response,
                                                     const char** url, size_t* len);
SLUICE_API int sluice_response_redirects(const sluice_response* response);
/* Connections opened for the request across its redirects and retries (curl's
   num_connects): 0 when it went over connections already open, or a bad handle. */
SLUICE_API int sluice_response_connects(const sluice_response* response);
SLUICE_API size_t sluice_response_header_count(const sluice_response* response);
/* The index-th header in the order received, names as sent. Valid for the life of
 * the response. */
SLUICE_API sluice_code sluice_response_header(const sluice_response* response, size_t index,
                                              const char** name, size_t* name_len,
                                              const char** value, size_t* value_len);
/* The first value of a header (ASCII case ignored); SLUICE_OK with *value NULL when
 * there is none. */
SLUICE_API sluice_code sluice_response_header_get(const sluice_response* response, const char* name,
                                                  size_t name_len, const char** value,
                                                  size_t* value_len);

/* Where the connection went: its address ("127.0.0.1", "::1"; valid for the life of
 * the response) and port (curl's %{remote_ip} and %{remote_port}). */
SLUICE_API sluice_code sluice_response_remote_address(const sluice_response* response,
                                                      const char** ip, size_t* len, uint16_t* port);
/* Where the connection left from (curl's %{local_ip} and %{local_port}); "" and 0 over
 * a Unix socket. */
SLUICE_API sluice_code sluice_response_local_address(const sluice_response* response,
                                                     const char** ip, size_t* len, uint16_t* port);

/* When each step of the response happened: the steps of the W3C Resource Timing and
 * of curl's -w times. DNS, CONNECT and TLS are the steps of a connection made while
 * the request waited (a reused connection has none); CONNECT is the TCP connect, TLS
 * its handshake; over HTTP/3 both are the one QUIC handshake. REQUEST_START: the
 * request began to be sent; RESPONSE_START: its head arrived; RESPONSE_END: the body
 * ended (its last byte, or its failure). */
typedef enum sluice_timing_step {
  SLUICE_TIMING_FETCH_START = 0, /* the final hop began (later than 0 after redirects) */
  SLUICE_TIMING_DNS_START = 1,
  SLUICE_TIMING_DNS_END = 2,
  SLUICE_TIMING_CONNECT_START = 3,
  SLUICE_TIMING_CONNECT_END = 4,
  SLUICE_TIMING_TLS_START = 5,
  SLUICE_TIMING_TLS_END = 6,
  SLUICE_TIMING_REQUEST_START = 7,
  SLUICE_TIMING_RESPONSE_START = 8,
  SLUICE_TIMING_RESPONSE_END = 9,
  SLUICE_TIMING_MAX_ = 0x7fffffff /* not a step: see SLUICE_VERSION_POLICY_MAX_ */
} sluice_timing_step;
/* Nanoseconds from the request's start (Resource Timing's startTime: the HTTP thread
 * took it) to `step`, or -1 when the step did not happen for this response (no DNS,
 * connect or TLS on a reused connection, no TLS over http://, no end while the body
 * is under way). */
SLUICE_API sluice_code sluice_response_timing(const sluice_response* response,
                                              sluice_timing_step step, int64_t* ns);
/* 1 when the response came over a connection that was open before its request, 0
 * when the request waited for a new one (or for a bad handle). */
SLUICE_API int sluice_response_connection_reused(const sluice_response* response);

/* What TLS did on the response's connection (curl -v's lines). Strings are valid for
 * the life of the response; SLUICE_OK with *value NULL when the field has no value:
 * no TLS (http://), or no certificate. */
typedef enum sluice_tls_field {
  SLUICE_TLS_VERSION = 0,      /* "TLSv1.3" */
  SLUICE_TLS_CIPHER = 1,       /* "TLS_AES_256_GCM_SHA384" */
  SLUICE_TLS_ALPN = 2,         /* "h2", "http/1.1", "h3"; "" when none was agreed */
  SLUICE_TLS_CERT_SUBJECT = 3, /* "CN=localhost" (OpenSSL's one-line form) */
  SLUICE_TLS_CERT_ISSUER = 4,
  SLUICE_TLS_MATCHED_NAME = 5,       /* the certificate name the host matched; "" for none */
  SLUICE_TLS_FIELD_MAX_ = 0x7fffffff /* not a field: see SLUICE_VERSION_POLICY_MAX_ */
} sluice_tls_field;
SLUICE_API sluice_code sluice_response_tls(const sluice_response* response, sluice_tls_field field,
                                           const char** value, size_t* len);
/* The index-th subjectAltName of the server's certificate ("DNS:localhost",
 * "IP Address:127.0.0.1"); SLUICE_OK with *value NULL past the last one. */
SLUICE_API sluice_code sluice_response_tls_cert_san(const sluice_response* response, size_t index,
                                                    const char** value, size_t* len);
/* The certificate's validity in seconds since 1970 (UTC); SLUICE_OK with *has_certificate
 * 0 (and both 0) without one. */
SLUICE_API sluice_code sluice_response_tls_cert_validity(const sluice_response* response,
                                                         int64_t* not_before, int64_t* not_after,
                                                         int* has_certificate);
/* 1 when the TLS session was resumed from an earlier connection, 0 otherwise. */
SLUICE_API int sluice_response_tls_resumed(const sluice_response* response);

/* Body reading. A body that ends early is an error, never a short success. */

/* Blocks until at least one byte is there (*n > 0), the body ended (*n == 0), or it
 * failed. */
SLUICE_API sluice_code sluice_response_read(sluice_response* response, void* buffer, size_t len,
                                            size_t* n);
/* Like read, but SLUICE_WOULD_BLOCK when nothing arrived within timeout_ms (0: never
 * waits: the non-blocking pull). */
SLUICE_API sluice_code sluice_response_read_timeout(sluice_response* response, void* buffer,
                                                    size_t len, uint32_t timeout_ms, size_t* n);
/* Borrows the next staged bytes where they lie, no copy (at most `max`, 0 meaning no
 * limit): *data and *len stay valid until the next read, next or release on this
 * response, or its free. *len == 0 at the end. Lent bytes still count against the
 * mark, so a reader that keeps them holds its stream. */
SLUICE_API sluice_code sluice_response_next(sluice_response* response, size_t max,
                                            const uint8_t** data, size_t* len);
/* next with a timeout: SLUICE_WOULD_BLOCK when nothing arrived within timeout_ms. */
SLUICE_API sluice_code sluice_response_next_timeout(sluice_response* response, size_t max,
                                                    uint32_t timeout_ms, const uint8_t** data,
                                                    size_t* len);
/* Gives back what next lent (the next call does it anyway). */
SLUICE_API sluice_code sluice_response_release(sluice_response* response);
/* Callback mode: from now on each staged piece goes to on_data, in place (valid
 * during the call only): return non-zero for more, 0 to pause delivery until
 * sluice_response_resume(). on_end runs once, after the last piece, with SLUICE_OK
 * or the body's error (message in sluice_last_error() during the call). Both run on
 * the HTTP thread (they must not block) or, with host dispatch, in
 * sluice_client_dispatch(). The response handle stays valid (free it when done; a
 * free does not stop the callbacks: cancel the request for that), and reads on it
 * are refused from now on. To stop a body, cancel its pending handle. */
typedef int (*sluice_data_cb)(void* user_data, const uint8_t* data, size_t len);
typedef void (*sluice_end_cb)(void* user_data, sluice_code code);
SLUICE_API sluice_code sluice_response_on_data(sluice_response* response, sluice_data_cb on_data,
                                               sluice_end_cb on_end, void* user_data);
/* Resumes delivery paused by on_data returning 0. Any thread. */
SLUICE_API sluice_code sluice_response_resume(sluice_response* response);

/* Decoded bytes received and not yet read; bytes read so far. */
SLUICE_API size_t sluice_response_buffered(const sluice_response* response);
SLUICE_API uint64_t sluice_response_bytes_read(const sluice_response* response);
/* Body bytes received from the server so far, before content decoding (curl's
 * size_download): the compressed size of a decoded body. Any thread. */
SLUICE_API uint64_t sluice_response_bytes_received(const sluice_response* response);
/* Trailer fields, once the body ended (0 before). Valid for the life of the response. */
SLUICE_API size_t sluice_response_trailer_count(sluice_response* response);
SLUICE_API sluice_code sluice_response_trailer(sluice_response* response, size_t index,
                                               const char** name, size_t* name_len,
                                               const char** value, size_t* value_len);

/* ---- Downloads -------------------------------------------------------------------- */

/* sluice::download(): a URL into a file, resumable, optionally as several byte ranges
 * at once, rate-limited through backpressure, retried from the bytes written,
 * verified. While incomplete the file has a control file beside it (PATH.sluice). */
typedef struct sluice_download_options sluice_download_options;
typedef struct sluice_download_result sluice_download_result;

/* `request`: the GET to make (URL, headers, version, timeouts, redirects, mark); it
 * is copied. */
SLUICE_API sluice_code sluice_download_options_new(const sluice_request* request,
                                                   sluice_download_options** out);
SLUICE_API void sluice_download_options_free(sluice_download_options* options);
/* The file to write; without one, a name chosen from the response in `directory`. */
SLUICE_API sluice_code sluice_download_options_set_path(sluice_download_options* options,
                                                        const char* path, size_t len);
SLUICE_API sluice_code sluice_download_options_set_directory(sluice_download_options* options,
                                                             const char* directory, size_t len);
/* Non-zero: continue a partial file (curl's -C -). */
SLUICE_API sluice_code sluice_download_options_set_resume(sluice_download_options* options,
                                                          int resume);
/* Byte ranges fetched at once, 1 to 16. */
SLUICE_API sluice_code sluice_download_options_set_ranges(sluice_download_options* options,
                                                          unsigned ranges);
/* Adds a mirror: another http(s) URL of the same file; the byte ranges are shared
 * among the sources (at most 16 with the request's URL). The request's credentials
 * go to a mirror only when it has the URL's origin. A mirror serving another size or
 * validator is dropped with a note; one that fails has its range continue elsewhere. */
SLUICE_API sluice_code sluice_download_options_add_mirror(sluice_download_options* options,
                                                          const char* url, size_t len);
/* Lowercase hex SHA-256 the complete file must have (64 characters). */
SLUICE_API sluice_code sluice_download_options_set_sha256(sluice_download_options* options,
                                                          const char* hex, size_t len);
/* 0: no limit. */
SLUICE_API sluice_code
sluice_download_options_set_max_bytes_per_second(sluice_download_options* options, uint64_t bytes);
/* Attempts after the first on a transient failure, each resuming. */
SLUICE_API sluice_code sluice_download_options_set_retries(sluice_download_options* options,
                                                           int retries);
/* Progress, on the thread that called sluice_download, every interval_ms while bytes
 * arrive and once at the end (finished non-zero). total is -1 while unknown. */
typedef void (*sluice_progress_cb)(void* user_data, uint64_t bytes_done, int64_t total,
                                   double bytes_per_second, int finished);
SLUICE_API sluice_code sluice_download_options_set_progress(sluice_download_options* options,
                                                            sluice_progress_cb progress,
                                                            void* user_data, uint32_t interval_ms);
/* Any thread, while sluice_download runs with these options: stops it within a
 * fraction of a second with SLUICE_E_CANCELLED, keeping the file and its control
 * file so that a resume continues it. */
SLUICE_API sluice_code sluice_download_options_cancel(sluice_download_options* options);

/* Downloads on the calling thread (it blocks). */
SLUICE_API sluice_code sluice_download(sluice_client* client, sluice_download_options* options,
                                       sluice_download_result** out);
SLUICE_API void sluice_download_result_free(sluice_download_result* result);
/* The file written; valid for the life of the result. */
SLUICE_API sluice_code sluice_download_result_path(const sluice_download_result* result,
                                                   const char** path, size_t* len);
SLUICE_API int sluice_download_result_status(const sluice_download_result* result);
SLUICE_API uint64_t sluice_download_result_size(const sluice_download_result* result);
/* Body bytes received by this run, and bytes already on disk that were kept. */
SLUICE_API uint64_t sluice_download_result_transferred(const sluice_download_result* result);
SLUICE_API uint64_t sluice_download_result_resumed_from(const sluice_download_result* result);
SLUICE_API unsigned sluice_download_result_ranges(const sluice_download_result* result);
/* Times a range that finished early took the second half of another's rest (work
   stealing); 0 for NULL. */
SLUICE_API unsigned sluice_download_result_steals(const sluice_download_result* result);
/* What a person should know ("the server ignored the range; restarted from byte 0"). */
SLUICE_API size_t sluice_download_result_note_count(const sluice_download_result* result);
SLUICE_API sluice_code sluice_download_result_note(const sluice_download_result* result,
                                                   size_t index, const char** note, size_t* len);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_H */
