#pragma once
// How every fuzz target reads libFuzzer's input: a few leading bytes choose options
// (a limit, which coding, how many requests), then the leading bytes of the payload
// say how it is cut into pieces for feed() calls, so that parsers see partial
// buffers the way socket reads hand them over. The layout is fixed and documented in
// fuzz/README.md, so a seed can be written by hand.
//
// Ownership: a view over libFuzzer's buffer for one run; the fuzzer's thread only.
// Also here: check(), the abort an invariant violation turns into (libFuzzer and
// ASan report it with a stack, like a crash).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>
#include <vector>

namespace sluice::fuzz {

/// Aborts with `what` when `holds` is false: a broken contract is a finding.
inline void check(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz: invariant violated: %s\n", what);
  std::abort();
}

/// With SLUICE_FUZZ_DEBUG set in the environment, targets describe what happens on
/// stderr (for reading what a seed or a crash input does, never while fuzzing).
inline bool debug_on() {
  static const bool on = std::getenv("SLUICE_FUZZ_DEBUG") != nullptr;
  return on;
}

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size)
      : rest_(reinterpret_cast<const char*>(data), size) {}

  bool empty() const noexcept { return rest_.empty(); }
  std::size_t size() const noexcept { return rest_.size(); }

  /// The next byte, 0 once the input is used up.
  std::uint8_t byte() noexcept {
    if (rest_.empty()) return 0;
    const auto value = static_cast<std::uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return value;
  }
  /// A little-endian 16-bit value (0 past the end).
  std::uint16_t u16() noexcept {
    const std::uint16_t low = byte();
    return static_cast<std::uint16_t>(low | (byte() << 8));
  }
  /// Up to `n` bytes.
  std::string_view take(std::size_t n) noexcept {
    const std::string_view piece = rest_.substr(0, n);
    rest_.remove_prefix(piece.size());
    return piece;
  }
  /// Everything left.
  std::string_view rest() noexcept { return take(rest_.size()); }
  /// Up to the next '\n' (excluded; the '\n' is consumed), or everything left.
  std::string_view line() noexcept {
    const std::size_t newline = rest_.find('\n');
    if (newline == std::string_view::npos) return rest();
    const std::string_view text = rest_.substr(0, newline);
    rest_.remove_prefix(newline + 1);
    return text;
  }

 private:
  std::string_view rest_;
};

/// Reads the split header, then cuts everything left into pieces:
///   byte  k = count of length bytes (k % 8; 0 means the payload goes in one piece)
///   k bytes L1..Lk: piece sizes used in turn, cyclically; 0 means "all that is left"
///   the payload
inline std::vector<std::string_view> split_pieces(FuzzInput& input) {
  const std::size_t count = input.byte() % 8;
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < count; ++i) lengths.push_back(input.byte());
  std::string_view payload = input.rest();
  std::vector<std::string_view> pieces;
  for (std::size_t i = 0; !payload.empty(); ++i) {
    const std::size_t length = lengths.empty() ? 0 : lengths[i % lengths.size()];
    const std::size_t take = length == 0 ? payload.size() : length;
    pieces.push_back(payload.substr(0, take));
    payload.remove_prefix(pieces.back().size());
  }
  return pieces;
}

inline std::span<const std::byte> bytes_of(std::string_view text) noexcept {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

}  // namespace sluice::fuzz
