#pragma once
// UTF-8 as the command checks it before printing a server's text: on a terminal
// (progress_format) and in JSON (json_summary). Pure; any thread.

#include <cstddef>
#include <string_view>

namespace sluice::cli {

/// Whether `byte` continues a multi-byte sequence (10xxxxxx).
inline bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

/// Length of the valid, printable UTF-8 sequence at text[i] (1 for ASCII, control
/// characters included), or 0 when the bytes there are not valid UTF-8 or encode a
/// C1 control (U+0080..U+009F: U+009B is a one-character CSI to some terminals).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

}  // namespace sluice::cli
