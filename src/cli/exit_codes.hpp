#pragma once
// The `sluice` command's exit codes: curl's numbers where curl has one for the same
// failure, so scripts written for curl keep working. man/sluice.1 (EXIT STATUS) and
// docs/cli.md ("Errors and exit codes") hold the table.
// Ownership: constants and pure functions; any thread.

#include "sluice/error.hpp"

namespace sluice::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUnsupportedProtocol = 1;  ///< a redirect to a protocol not allowed
inline constexpr int kExitUsage = 2;                ///< bad option or argument
inline constexpr int kExitBadUrl = 3;               ///< URL did not parse
inline constexpr int kExitDns = 6;                  ///< could not resolve host
inline constexpr int kExitConnect = 7;              ///< could not connect
inline constexpr int kExitProtocol = 8;             ///< the server broke HTTP
inline constexpr int kExitHttp2 = 16;               ///< the HTTP/2 framing layer failed
inline constexpr int kExitPartialFile = 18;         ///< the body ended before its end
inline constexpr int kExitHttpError = 22;           ///< -f and a status >= 400
inline constexpr int kExitWriteError = 23;  ///< writing the output (or a library file job) failed
inline constexpr int kExitReadError = 26;   ///< a local file for -d/--data-binary/-w is unreadable
inline constexpr int kExitOutOfMemory = 27;
inline constexpr int kExitTimeout = 28;           ///< a timeout expired
inline constexpr int kExitRangeError = 33;        ///< -C's offset could not be continued
inline constexpr int kExitTls = 35;               ///< the TLS handshake failed
inline constexpr int kExitCancelled = 42;         ///< the transfer was cancelled
inline constexpr int kExitInternal = 43;          ///< a library call got a bad argument
inline constexpr int kExitInterface = 45;         ///< --interface or --local-port unusable
inline constexpr int kExitTooManyRedirects = 47;  ///< --max-redirs reached
inline constexpr int kExitEmptyReply = 52;        ///< the server closed without a byte
inline constexpr int kExitSendError = 55;         ///< sending failed (the peer reset or closed)
inline constexpr int kExitReceiveError = 56;     ///< receiving failed; the proxy refused the tunnel
inline constexpr int kExitPeerCertificate = 60;  ///< the server's certificate did not verify
inline constexpr int kExitDecode = 61;           ///< content decoding failed
inline constexpr int kExitTooLarge = 63;         ///< a size limit was exceeded
inline constexpr int kExitCaFile = 77;           ///< the CA file (--cacert) is unusable
inline constexpr int kExitPinnedKey = 90;        ///< --pinnedpubkey did not match
inline constexpr int kExitHttp3 = 95;            ///< the HTTP/3 layer failed
inline constexpr int kExitProxyHandshake = 97;   ///< the proxy's handshake failed (SOCKS5)

/// The exit code for a library error code. By code, never by message: messages are
/// for people and are never parsed. A code curl has no number of its own for gets
/// its category's. The switch names every code, so a new one fails to compile
/// (-Wswitch) until it is given a number here.
constexpr int exit_code_for(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::dns_failed: return kExitDns;
    case ErrorCode::connect_failed: return kExitConnect;
    // curl: "CONNECT tunnel failed, response 407", CURLE_RECV_ERROR.
    case ErrorCode::proxy_refused: return kExitReceiveError;
    case ErrorCode::local_bind_failed: return kExitInterface;
    case ErrorCode::proxy_handshake: return kExitProxyHandshake;
    case ErrorCode::tls_failed: return kExitTls;
    case ErrorCode::tls_certificate: return kExitPeerCertificate;
    case ErrorCode::tls_ca_file: return kExitCaFile;
    case ErrorCode::tls_pinned_key: return kExitPinnedKey;
    case ErrorCode::protocol_error: return kExitProtocol;
    case ErrorCode::body_truncated: return kExitPartialFile;
    case ErrorCode::empty_reply: return kExitEmptyReply;
    case ErrorCode::http2_framing: return kExitHttp2;
    case ErrorCode::http3_failed: return kExitHttp3;
    case ErrorCode::timeout:
    case ErrorCode::connect_timeout:
    case ErrorCode::first_byte_timeout:
    case ErrorCode::idle_timeout:
    case ErrorCode::total_timeout:
    case ErrorCode::ping_timeout:
    case ErrorCode::handshake_timeout:
    case ErrorCode::dns_timeout:
    case ErrorCode::low_speed: return kExitTimeout;
    case ErrorCode::cancelled: return kExitCancelled;
    case ErrorCode::too_many_redirects: return kExitTooManyRedirects;
    case ErrorCode::too_large:
    case ErrorCode::headers_too_large:
    case ErrorCode::decoded_too_large:
    case ErrorCode::body_too_large: return kExitTooLarge;
    case ErrorCode::decode_failed: return kExitDecode;
    case ErrorCode::io_failed: return kExitWriteError;
    case ErrorCode::out_of_memory: return kExitOutOfMemory;
    case ErrorCode::send_failed: return kExitSendError;
    case ErrorCode::receive_failed: return kExitReceiveError;
    case ErrorCode::usage: return kExitUsage;
    case ErrorCode::bad_url: return kExitBadUrl;
    case ErrorCode::invalid_argument: return kExitInternal;
    case ErrorCode::http_status:
    case ErrorCode::redirect_refused: return kExitHttpError;
    // curl: "Protocol "http" not supported or disabled" for a redirect --proto-redir refuses.
    case ErrorCode::insecure_redirect: return kExitUnsupportedProtocol;
  }
  return kExitUsage;
}

/// The exit code for a library error (its code's).
inline int exit_code_for(const Error& error) noexcept { return exit_code_for(error.code()); }

}  // namespace sluice::cli
