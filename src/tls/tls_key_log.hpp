#pragma once
// TlsKeyLog: the NSS key log format (SSLKEYLOGFILE) that Wireshark reads to decrypt
// a capture. QUIC's GnuTLS sessions honour SSLKEYLOGFILE by themselves; OpenSSL only
// hands out the lines, which this appends to the file.
// Ownership: created with the TlsContext; then written on the HTTP thread. Several
// Clients (threads, processes) may share the file: O_APPEND and one write() per line
// keep their lines whole.

#include <string>
#include <string_view>

#include "sluice/error.hpp"

namespace sluice {

class TlsKeyLog {
 public:
  /// Opens (creating, mode 0600: the lines decrypt traffic) `path` for appending.
  static Result<TlsKeyLog> open(const std::string& path);
  TlsKeyLog() = default;
  TlsKeyLog(TlsKeyLog&& other) noexcept;
  TlsKeyLog& operator=(TlsKeyLog&& other) noexcept;
  ~TlsKeyLog();

  bool enabled() const noexcept { return fd_ >= 0; }
  /// Appends `line` and a newline; a failed write is dropped (a debugging aid must
  /// not fail a connection).
  void append(std::string_view line) const noexcept;

 private:
  int fd_ = -1;
};

}  // namespace sluice
