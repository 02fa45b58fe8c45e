#pragma once
/// @file
/// Library version, and the versions of the libraries it runs on.

#include <string>
#include <vector>

#include "sluice/export.h"

namespace sluice {
inline constexpr const char* kVersion = "0.1.0";

/// One library sluice is linked with, and its version as the library reports it at
/// run time (so the one actually loaded, not the one compiled against).
struct LibraryVersion {
  std::string name;     ///< "nghttp2", "OpenSSL", "c-ares", ...
  std::string version;  ///< "1.52.0"
};

/// Every library linked in, TLS first, then compression, names (c-ares, libidn2,
/// libpsl) and the protocols (llhttp, nghttp2, ngtcp2, nghttp3), as curl lists them.
SLUICE_API std::vector<LibraryVersion> linked_libraries();

/// linked_libraries() as "name/version" words separated by blanks, for `--version`
/// and bug reports: "OpenSSL/3.0.11 zlib/1.2.13 brotli/1.0.9 zstd/1.5.4
/// c-ares/1.18.1 libidn2/2.3.3 libpsl/0.21.2 llhttp/8.1.0 nghttp2/1.52.0
/// ngtcp2/0.12.1 GnuTLS/3.7.9 nghttp3/0.8.0".
SLUICE_API std::string library_versions();
}  // namespace sluice
