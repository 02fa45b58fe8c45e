#pragma once
// The version of the library this layer wraps (OpenSSL), asked at run time, so it
// is the one actually loaded. client/library_versions.cpp joins every layer's.
// Pure function; any thread.

#include <string>

namespace sluice {

/// e.g. "OpenSSL/3.0.11"
std::string tls_library_versions();

}  // namespace sluice
