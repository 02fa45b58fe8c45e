#pragma once
// The `sluice` command's exit codes: curl's numbers where curl has one for the same
// failure, so scripts written for curl keep working. docs/cli.md ("Errors and exit
// codes") holds the table.
// Ownership: constants and pure functions; any thread.

#include "sluice/error.hpp"

namespace sluice::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUnsupportedProtocol = 1;  ///< a redirect to a protocol not allowed
inline constexpr int kExitUsage = 2;                ///< bad option or argument
inline constexpr int kExitBadUrl = 3;               ///< URL did not parse (checked before sending)
inline constexpr int kExitDns = 6;                  ///< could not resolve host
inline constexpr int kExitConnect = 7;              ///< could not connect
inline constexpr int kExitProtocol = 8;             ///< the server broke HTTP, body ended early
inline constexpr int kExitHttpError = 22;           ///< -f and a status >= 400
inline constexpr int kExitWriteError = 23;  ///< writing the output (or a library file job) failed
inline constexpr int kExitReadError = 26;   ///< a local file for -d/--data-binary/-w is unreadable
inline constexpr int kExitTimeout = 28;     ///< a timeout expired
inline constexpr int kExitTls = 35;         ///< TLS handshake or certificate verification failed
inline constexpr int kExitCancelled = 42;   ///< the transfer was cancelled
inline constexpr int kExitInterface = 45;   ///< --interface or --local-port could not be used
inline constexpr int kExitDecode = 61;      ///< content decoding failed
inline constexpr int kExitTooLarge = 63;    ///< a limit was exceeded (redirects, sizes)

/// The exit code for a library error. The mapping is by category only: messages are
/// for people and are never parsed, so a truncated body (protocol) is 8, not curl's 18.
constexpr int exit_code_for(ErrorCategory category) noexcept {
  switch (category) {
    case ErrorCategory::dns: return kExitDns;
    case ErrorCategory::connect: return kExitConnect;
    case ErrorCategory::tls: return kExitTls;
    case ErrorCategory::protocol: return kExitProtocol;
    case ErrorCategory::timeout: return kExitTimeout;
    case ErrorCategory::cancelled: return kExitCancelled;
    case ErrorCategory::too_large: return kExitTooLarge;
    case ErrorCategory::decode: return kExitDecode;
    case ErrorCategory::io: return kExitWriteError;
    case ErrorCategory::usage: return kExitUsage;
    case ErrorCategory::http: return kExitHttpError;
  }
  return kExitUsage;
}

/// The exit code for a library error: by its category, except where curl has a
/// number of its own for the code.
inline int exit_code_for(const Error& error) noexcept {
  if (error.code() == ErrorCode::local_bind_failed) return kExitInterface;
  // curl: "Protocol "http" not supported or disabled" for a redirect --proto-redir refuses.
  if (error.code() == ErrorCode::insecure_redirect) return kExitUnsupportedProtocol;
  return exit_code_for(error.category());
}

}  // namespace sluice::cli
