#pragma once
// make_client: the Client a test asks for, or a failure of that test saying why it
// could not be made. Result::value() on an error would stop on an assert (Debug)
// without a word of the error, or read garbage (Release).
// Ownership: a free function; any test thread.

#include "sluice/client.hpp"

namespace sluice::test {

/// Client::create(options); when that fails, throws std::runtime_error with the
/// error's description, which GoogleTest reports as the test's failure.
Client make_client(ClientOptions options = {});

}  // namespace sluice::test
