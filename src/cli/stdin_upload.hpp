#pragma once
// -T - : stdin as a streamed request body. A thread reads stdin and writes each
// piece through the body's BodyWriter, which waits while the request has its mark
// unsent, so a slow server slows the pipe instead of filling memory.
// Ownership: created and started by the Transfer on main's thread; the reading
// thread shares the BodyWriter (thread-safe) and nothing else.

#include <memory>

#include "sluice/body.hpp"
#include "sluice/request.hpp"

namespace sluice::cli {

/// The body for the request (no length: chunked over HTTP/1.1), fed from stdin by
/// a thread started here. The thread ends when stdin does (closing the body), when
/// reading fails (aborting it), or when the request ends first (its next write
/// fails). It is detached: a read() blocked on a terminal cannot be interrupted,
/// and the command exits right after its transfer.
StreamBody start_stdin_upload();

}  // namespace sluice::cli
