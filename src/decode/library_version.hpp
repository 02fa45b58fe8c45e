#pragma once
// The versions of the compression libraries, asked at run time, so they are the ones actually loaded.
// client/library_versions.cpp joins every layer's. Pure function; any thread.

#include <vector>

#include "sluice/version.hpp"

namespace sluice {

/// e.g. {"zlib", "1.2.13"}, {"brotli", "1.0.9"}, {"zstd", "1.5.4"}
std::vector<LibraryVersion> decode_library_versions();

}  // namespace sluice
