#pragma once
// What more than one benchmark measures or checks: the process's CPU time and the
// length a response body must have. Any thread; no state.

#include <cstdint>
#include <optional>

#include "sluice/response.hpp"

namespace sluice::bench {

/// User + system time of every thread of this process so far (getrusage
/// RUSAGE_SELF): the HTTP thread, consumers and the file pool all count.
double process_cpu_seconds();

/// The Content-Length the decoded body must match: none when the body is
/// content-encoded (the header then counts encoded bytes) or when the server sent
/// none (or one that is not a number, which the library would have refused).
std::optional<std::uint64_t> expected_length(const Response& response);

/// The error for a body whose decoded size disagrees with its Content-Length.
Error length_mismatch(std::uint64_t got, std::uint64_t expected);

}  // namespace sluice::bench
