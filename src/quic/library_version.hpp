#pragma once
// The versions of ngtcp2 and GnuTLS (its QUIC crypto), asked at run time, so they are the ones actually loaded.
// client/library_versions.cpp joins every layer's. Pure function; any thread.

#include <vector>

#include "sluice/version.hpp"

namespace sluice {

/// e.g. {"ngtcp2", "0.12.1"}, {"GnuTLS", "3.7.9"}
std::vector<LibraryVersion> quic_library_versions();

}  // namespace sluice
