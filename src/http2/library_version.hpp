#pragma once
// The version of nghttp2, asked at run time, so it is the one actually loaded.
// client/library_versions.cpp joins every layer's. Pure function; any thread.

#include <vector>

#include "sluice/version.hpp"

namespace sluice {

/// e.g. {"nghttp2", "1.52.0"}
std::vector<LibraryVersion> http2_library_versions();

}  // namespace sluice
