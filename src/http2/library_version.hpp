#pragma once
// The version of nghttp2, asked at run time, so it is the one actually loaded.
// client/library_versions.cpp joins every layer's. Pure function; any thread.

#include <string>

namespace sluice {

/// e.g. "nghttp2/1.52.0"
std::string http2_library_versions();

}  // namespace sluice
