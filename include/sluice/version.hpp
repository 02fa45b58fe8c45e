#pragma once
/// @file
/// Library version.

namespace sluice {
inline constexpr const char* kVersion = "0.1.0";
}  // namespace sluice
