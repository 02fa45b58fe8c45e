#pragma once
// The version of nghttp3, asked at run time, so it is the one actually loaded.
// client/library_versions.cpp joins every layer's. Pure function; any thread.

#include <vector>

#include "sluice/version.hpp"

namespace sluice {

/// e.g. {"nghttp3", "0.8.0"}
std::vector<LibraryVersion> http3_library_versions();

}  // namespace sluice
