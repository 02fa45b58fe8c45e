#pragma once
// The versions of the compression libraries, asked at run time, so they are the
// ones actually loaded. client/library_versions.cpp joins every layer's. Pure
// function; any thread.

#include <string>

namespace sluice {

/// e.g. "zlib/1.2.13 brotli/1.0.9 zstd/1.5.4"
std::string decode_library_versions();

}  // namespace sluice
