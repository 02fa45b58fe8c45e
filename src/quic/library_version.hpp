#pragma once
// The versions of ngtcp2 and GnuTLS, asked at run time, so they are the ones
// actually loaded. client/library_versions.cpp joins every layer's. Pure function;
// any thread.

#include <string>

namespace sluice {

/// e.g. "ngtcp2/0.12.1 GnuTLS/3.7.9"
std::string quic_library_versions();

}  // namespace sluice
