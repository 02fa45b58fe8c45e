#pragma once
// Words for a frame nghttp2 rejected: which frame, what was wrong with it, and the
// HTTP/2 error code the connection or stream ends with, so that an error from a
// hostile or broken server says what happened ("server sent an invalid SETTINGS
// frame: SETTINGS_MAX_FRAME_SIZE of 100 is outside 16384..16777215 (PROTOCOL_ERROR)")
// instead of nghttp2's one-word reason.
// Ownership: pure functions; any thread.

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <string>

namespace sluice {

/// "DATA", "SETTINGS", "WINDOW_UPDATE", ...; "frame type 0xNN" for others.
std::string h2_frame_type_name(std::uint8_t type);

/// The HTTP/2 error code nghttp2 answers a rejected frame with, from the library
/// error it reports (NGHTTP2_ERR_FLOW_CONTROL -> FLOW_CONTROL_ERROR, ...).
std::uint32_t h2_code_for_library_error(int lib_error_code);

/// What was wrong with `frame`, which nghttp2 rejected with `lib_error_code`: the
/// offending setting and its value, a window overflow, a raised GOAWAY last stream
/// id; nghttp2's own reason when nothing more precise is known.
std::string describe_invalid_frame(const nghttp2_frame& frame, int lib_error_code);

}  // namespace sluice
