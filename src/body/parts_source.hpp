#pragma once
// The RequestBodySource of a PartsBody: its parts' sources, sent one after another
// (a multipart form's boundaries as bytes, its files read on the file pool).
// Ownership: like every body source, created on the user's thread, then HTTP
// thread only.

#include <memory>
#include <vector>

#include "connection/connection.hpp"

namespace sluice {

/// A source that yields each of `parts` to its end, then the next. Its length is
/// the sum of theirs (nullopt if one is unknown); it rewinds when all of them do.
std::unique_ptr<RequestBodySource> make_parts_source(
    std::vector<std::unique_ptr<RequestBodySource>> parts);

}  // namespace sluice
