#pragma once
// WireDump: the text of curl's --trace (hex) and --trace-ascii files, built from the
// library's wire tap and trace lines. A record is a title line ("=> Send data, 5 bytes
// (0x5)") and the bytes: 16 a line as offset, hex and printable ASCII for --trace;
// 64 a line, ASCII only, a CR LF ending the line, for --trace-ascii.
// Ownership: none; pure functions.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "sluice/client.hpp"

namespace sluice::cli {

enum class DumpStyle { hex, ascii };

/// The lines of `bytes` in `style` (each ending in '\n').
std::string dump_bytes(std::span<const std::byte> bytes, DumpStyle style);
/// A record of a wire chunk: its title and its lines.
std::string dump_chunk(const WireChunk& chunk, DumpStyle style);
/// A trace line as curl writes one: "== Info: <line>\n".
std::string dump_info(std::string_view line);
/// "HH:MM:SS.uuuuuu " of the local time now (--trace-time).
std::string trace_timestamp();

}  // namespace sluice::cli
