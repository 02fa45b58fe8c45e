#pragma once
/// @file
/// Library version, and the versions of the libraries it runs on.

#include <string>

#include "sluice/export.h"

namespace sluice {
inline constexpr const char* kVersion = "0.1.0";

/// The libraries linked in, with the versions found at run time, for `--version`
/// and bug reports: "nghttp2/1.52.0 ngtcp2/0.12.1
/// nghttp3/0.8.0 GnuTLS/3.7.9 OpenSSL/3.0.11 zlib/1.2.13 brotli/1.0.9
/// zstd/1.5.4".
SLUICE_API std::string library_versions();
}  // namespace sluice
