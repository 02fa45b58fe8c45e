#pragma once
// How a soak worker reads a response body, and how it checks what arrived: the
// reading behaviours (at full speed, slowly, in callback mode, partially) and
// BodyCheck, which compares the bytes with what the server must have sent.
// Used by one worker thread at a time, except where a comment says otherwise.

#include <openssl/evp.h>

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>

#include "sluice/body.hpp"
#include "sluice/error.hpp"

namespace sluice::soak {

using Rng = std::mt19937_64;

/// What a complete, correct body is.
struct Expected {
  std::uint64_t size = 0;
  std::string sha256;      ///< lowercase hex; empty when `exact` is used instead
  std::string_view exact;  ///< the bytes themselves (in-process servers); must outlive the check
};

/// Accumulates a body and says whether it is the expected one.
class BodyCheck {
 public:
  explicit BodyCheck(Expected expected);
  void add(std::span<const std::byte> bytes);
  std::uint64_t bytes() const { return bytes_; }
  /// "" when every byte and the size match; otherwise what differs. Call once, at
  /// the end of the body.
  std::string mismatch();
  /// With `exact`: every byte so far matched (what a failed body delivered is still
  /// a true prefix).
  bool prefix_matches() const { return !differs_; }

 private:
  Expected expected_;
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> sha_;
  std::uint64_t bytes_ = 0;
  bool differs_ = false;  ///< a byte differed from `exact` (or arrived beyond it)
};

/// Reads to the end (or the first error) with reads of random sizes. With `slow`,
/// the first ~1.5 s reads small pieces with pauses between them, so the stream is
/// held at its mark and resumed again and again; the rest goes at full speed.
Result<void> read_to_end(BodyReader& body, BodyCheck& check, Rng& rng, bool slow);

/// Reads until at least `limit` bytes arrived, the body ended, or it failed.
Result<void> read_some(BodyReader& body, BodyCheck& check, std::uint64_t limit);

/// Callback mode: every chunk goes through on_data on the HTTP thread; now and then
/// on_data returns false and this thread resumes the body a few milliseconds later.
/// Blocks until on_end fired, or fails with a "soak: callback mode stalled" timeout
/// when nothing happened for 30 s (the caller then cancels the request).
Result<void> read_by_callbacks(BodyReader& body, BodyCheck& check, Rng& rng);

}  // namespace sluice::soak
