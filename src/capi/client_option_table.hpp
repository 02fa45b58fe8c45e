#pragma once
// The client options that take one value, described once. Each row gives rise to:
//   - the typed C setter sluice_client_options_set_<c_name> (add_<c_name> for a
//     TEXT_LIST), whose declaration in sluice.h the compiler holds to the row's kind
//     (capi_client_option_table.cpp);
//   - an entry of the table sluice_client_option_next() walks, by which a binding
//     (Python, Node) sets any option by name with sluice_client_options_set_text /
//     _set_number, so that a new option is one row here and its declaration in
//     sluice.h, and no binding changes.
// Options that take several values at once or a callback (tls_versions, local_port,
// ip_version, netrc, trace, cookie_jar) keep setters written by hand.
//
// X(KIND, c_name, name, field, rule, help):
//   KIND    TEXT (a string field), TEXT_LIST (each call appends to a vector), FLAG
//           (bool), COUNT (an unsigned integer), MILLISECONDS, SECONDS (a duration)
//   c_name  the C setter's name after sluice_client_options_set_ (or add_)
//   name    the name a binding sets it by (bindings keep their names when a field
//           moves between ClientOptions' groups)
//   field   the ClientOptions field, in its group (tls.ca_file)
//   rule    the value's check: any, header_value, at_least_one
//   help    one line for a binding's error messages and help (ClientOptions in
//           sluice/client_options.hpp says the whole)

#define SLUICE_CLIENT_OPTION_TABLE(X)                                                             \
  /* TLS */                                                                                       \
  X(TEXT, ca_file, ca_file, tls.ca_file, any,                                                     \
    "PEM bundle trusted instead of the system store (--cacert)")                                  \
  X(TEXT, ca_path, ca_path, tls.ca_path, any,                                                     \
    "directory of hashed PEM CA certificates (--capath)")                                         \
  X(FLAG, insecure, insecure, tls.insecure, any, "skip certificate and host verification (-k)")   \
  X(TEXT, client_cert, client_cert, tls.client_cert, any,                                         \
    "PEM client certificate, with its key unless client_key")                                     \
  X(TEXT, client_key, client_key, tls.client_key, any, "PEM private key of client_cert (--key)")  \
  X(TEXT, key_password, key_password, tls.key_password, any,                                      \
    "passphrase of an encrypted client key (--pass)")                                             \
  X(TEXT, pinned_public_key, pinned_public_key, tls.pinned_public_key, any,                       \
    "sha256//BASE64[;...] pins or a public key file (--pinnedpubkey)")                            \
  X(TEXT, tls12_ciphers, tls12_ciphers, tls.tls12_ciphers, any,                                   \
    "OpenSSL cipher list for TLS 1.2 (--ciphers)")                                                \
  X(TEXT, tls13_ciphers, tls13_ciphers, tls.tls13_ciphers, any,                                   \
    "TLS 1.3 cipher suites (--tls13-ciphers)")                                                    \
  X(TEXT, key_log_file, key_log_file, tls.key_log_file, any,                                      \
    "NSS key log file (else $SSLKEYLOGFILE)")                                                     \
  X(FLAG, tls_session_cache, tls_session_cache, tls.session_cache, any,                           \
    "resume TLS sessions per origin (default on)")                                                \
  X(FLAG, tls_early_data, tls_early_data, tls.early_data, any,                                    \
    "0-RTT for safe requests over HTTP/3 (--tls-earlydata)")                                      \
  /* Proxies */                                                                                   \
  X(TEXT, proxy, proxy, proxy.url, any, "proxy URL for every request (-x)")                       \
  X(TEXT, proxy_user, proxy_user, proxy.user, any, "proxy credentials user:password (-U)")        \
  X(TEXT, no_proxy, no_proxy, proxy.no_proxy, any,                                                \
    "hosts reached directly, NO_PROXY syntax (--noproxy)")                                        \
  X(FLAG, proxy_from_environment, proxy_from_environment, proxy.from_environment, any,            \
    "read http_proxy, https_proxy, all_proxy and no_proxy as curl does")                          \
  X(FLAG, proxy_tunnel, proxy_tunnel, proxy.tunnel, any,                                          \
    "tunnel http:// through the proxy too (-p)")                                                  \
  X(TEXT, proxy_ca_file, proxy_ca_file, proxy.ca_file, any,                                       \
    "PEM bundle for an https:// proxy (--proxy-cacert)")                                          \
  X(FLAG, proxy_insecure, proxy_insecure, proxy.insecure, any,                                    \
    "skip the proxy's certificate check")                                                         \
  /* Names and routes */                                                                          \
  X(TEXT_LIST, resolve, resolve, routing.resolve, any, "host:port:addr[,addr] entry (--resolve)") \
  X(TEXT_LIST, connect_to, connect_to, routing.connect_to, any,                                   \
    "host:port:connect_host:connect_port (--connect-to)")                                         \
  X(TEXT, unix_socket, unix_socket, routing.unix_socket, any,                                     \
    "Unix socket every connection goes to (--unix-socket)")                                       \
  X(TEXT, dns_servers, dns_servers, routing.dns_servers, any,                                     \
    "addr[:port],... instead of resolv.conf (--dns-servers)")                                     \
  X(MILLISECONDS, dns_timeout_ms, dns_timeout, routing.dns_timeout, any,                          \
    "DNS lookup bound (0: the connect bound only)")                                               \
  X(SECONDS, dns_cache_ttl_s, dns_cache_ttl, routing.dns_cache_ttl, any,                          \
    "longest reuse of a DNS answer (0: no cache)")                                                \
  X(MILLISECONDS, happy_eyeballs_delay_ms, happy_eyeballs_delay, routing.happy_eyeballs_delay,    \
    any, "head start of the first address family (--happy-eyeballs-timeout-ms)")                  \
  X(MILLISECONDS, connect_attempt_timeout_ms, connect_attempt_timeout,                            \
    routing.connect_attempt_timeout, any, "bound on one connect attempt before the next address") \
  X(TEXT, interface, interface, routing.interface, any,                                           \
    "interface name or local address to leave from (--interface)")                                \
  /* Connections and HTTP */                                                                      \
  X(TEXT, user_agent, user_agent, user_agent, header_value, "User-Agent of every request (-A)")   \
  X(COUNT, max_connections_per_origin, max_connections_per_origin,                                \
    pool.max_connections_per_origin, at_least_one, "connections per origin")                      \
  X(MILLISECONDS, pool_idle_timeout_ms, pool_idle_timeout, pool.idle_timeout, any,                \
    "an idle pooled connection closes after this")                                                \
  X(MILLISECONDS, http3_fallback_after_ms, http3_fallback_after, pool.http3_fallback_after, any,  \
    "QUIC handshake time before TCP is used instead")                                             \
  X(MILLISECONDS, http3_broken_for_ms, http3_broken_for, pool.http3_broken_for, any,              \
    "how long an origin whose HTTP/3 failed is not tried over it")                                \
  X(FLAG, host_dispatch, host_dispatch, host_dispatch, any,                                       \
    "callbacks run in the host loop's dispatch")                                                  \
  /* Memory */                                                                                    \
  X(COUNT, staged_bytes_budget, staged_bytes_budget, memory.staged_bytes_budget, any,             \
    "bytes staged for readers in all (0: no bound)")                                              \
  X(COUNT, owned_upload_budget, owned_upload_budget, memory.owned_upload_budget, any,             \
    "owned request bodies not yet sent (0: no bound)")                                            \
  X(COUNT, release_threshold, release_threshold, memory.release_threshold, any,                   \
    "copies larger than this are freed by the thread that finished with them")                    \
  X(MILLISECONDS, sweep_interval_ms, sweep_interval, memory.sweep_interval, at_least_one,         \
    "how often empty scratch of paused readers is freed")                                         \
  X(COUNT, file_threads, file_threads, file_threads, at_least_one,                                \
    "threads that read and write files")                                                          \
  X(COUNT, low_speed_limit, low_speed_limit, low_speed.bytes_per_second, any,                     \
    "bytes a second below which a transfer is too slow (--speed-limit)")                          \
  X(SECONDS, low_speed_time_s, low_speed_time, low_speed.time, any,                               \
    "seconds a transfer may stay below low_speed_limit (--speed-time)")                           \
  /* State kept in files between runs */                                                          \
  X(TEXT, alt_svc_file, alt_svc_file, state.alt_svc_file, any,                                    \
    "Alt-Svc cache file, curl's format (--alt-svc)")                                              \
  X(FLAG, hsts, hsts, state.hsts, any, "HSTS: known hosts go to https:// (--hsts)")               \
  X(TEXT, hsts_file, hsts_file, state.hsts_file, any, "HSTS file, curl's format; turns hsts on")  \
  X(TEXT, tls_session_file, tls_session_file, state.tls_session_file, any,                        \
    "TLS session tickets file, mode 0600 (--ssl-sessions)")
