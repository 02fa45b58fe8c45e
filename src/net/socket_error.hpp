#pragma once
// What a failed send or receive on a connected socket tells the user, for every
// transport over TCP (plain and TLS). Ownership: a pure function; any thread.

#include "sluice/error.hpp"

namespace sluice {

/// The error for `err` (an errno) from a receive (`receiving`) or a send: their codes
/// differ (receive_failed, send_failed: curl's 56 and 55), because which one broke
/// says whether the request may have reached the server.
Error socket_io_error(int err, bool receiving);

}  // namespace sluice
