#pragma once
// The version of c-ares, asked at run time, so it is the one actually loaded.
// client/library_versions.cpp joins every layer's. Pure function; any thread.

#include <vector>

#include "sluice/version.hpp"

namespace sluice {

/// e.g. {"c-ares", "1.18.1"}
std::vector<LibraryVersion> dns_library_versions();

}  // namespace sluice
