#pragma once
// The version of OpenSSL, asked at run time, so it is the one actually loaded.
// client/library_versions.cpp joins every layer's. Pure function; any thread.

#include <vector>

#include "sluice/version.hpp"

namespace sluice {

/// e.g. {"OpenSSL", "3.0.11"}
std::vector<LibraryVersion> tls_library_versions();

}  // namespace sluice
