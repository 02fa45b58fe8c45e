#include "decode/content_decoder.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "decode/brotli_decoder.hpp"
#include "decode/gzip_decoder.hpp"
#include "decode/zstd_decoder.hpp"

namespace sluice {
namespace {

constexpr std::size_t kMaxCodings = 4;
// Between two codings of a chain: small, so a chain holds little decoded data beyond
// what the caller has room for (at most this much per link).
constexpr std::size_t kLinkCapacity = 16 * 1024;
// The ratio limit starts to apply past this many decoded bytes: small bodies of
// zeros or repeated markup legitimately compress far beyond 1000:1.
constexpr std::uint64_t kRatioGrace = std::uint64_t{1} << 20;
// A coding name echoed in an error is cut here; it comes from the server.
constexpr std::size_t kMaxEchoedName = 64;

constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) noexcept {
  if (a != 0 && b > kUnbounded / a) return kUnbounded;
  return a * b;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return b > kUnbounded - a ? kUnbounded : a + b;
}

// Several decoders in a row, applying the limits to the whole. stages_[0] decodes
// the outermost coding (the last one listed in Content-Encoding); links_[i] carries
// stage i's output to stage i + 1. One coding is a chain of one, without links.
// Ownership: one per response, HTTP thread only.
class DecoderChain final : public ContentDecoder {
 public:
  DecoderChain(std::vector<std::unique_ptr<ContentDecoder>> stages, DecodeLimits limits)
      : stages_(std::move(stages)), links_(stages_.size() - 1), limits_(limits) {}

  using ContentDecoder::decode;
  Result<DecodeStep> decode(std::span<const std::byte> input, DecodeOutput& out,
                            std::size_t max_output) override;
  Result<void> finish() override;
  std::size_t release_scratch() override;

 private:
  std::size_t output_cap(std::size_t input_size, std::size_t max_output) const noexcept;
  Result<DecodeStep> run_stages(std::span<const std::byte> input, DecodeOutput& out,
                                std::size_t max_output);
  Result<DecodeStep> run_stage(std::size_t i, std::span<const std::byte> input, DecodeOutput& out,
                               std::size_t room);
  std::optional<Error> check_limits() const;
  Error fail(Error error) {
    failed_ = error;
    return error;
  }

  std::vector<std::unique_ptr<ContentDecoder>> stages_;
  std::vector<ByteQueue> links_;
  DecodeLimits limits_;
  std::uint64_t encoded_ = 0;    ///< input bytes taken by the outermost stage
  std::uint64_t decoded_ = 0;    ///< bytes handed to callers
  std::optional<Error> failed_;  ///< sticky: a failed stream stays failed
};

// The limits cap each call's output one byte past what they allow, so a bomb is
// caught after at most one extra byte instead of after a whole max_output: the
// ratio cap assumes this call takes all of `input`, the most it could.
std::size_t DecoderChain::output_cap(std::size_t input_size,
                                     std::size_t max_output) const noexcept {
  std::uint64_t allowed = kUnbounded;
  if (limits_.max_decoded_size != 0) allowed = limits_.max_decoded_size;
  if (limits_.max_ratio != 0) {
    const std::uint64_t by_ratio = std::max(
        kRatioGrace, saturating_mul(limits_.max_ratio, saturating_add(encoded_, input_size)));
    allowed = std::min(allowed, by_ratio);
  }
  if (allowed == kUnbounded) return max_output;
  const std::uint64_t room = saturating_add(allowed - std::min(allowed, decoded_), 1);
  return static_cast<std::size_t>(std::min<std::uint64_t>(room, max_output));
}

Result<DecodeStep> DecoderChain::decode(std::span<const std::byte> input, DecodeOutput& out,
                                        std::size_t max_output) {
  if (failed_) return *failed_;
  if (max_output == 0) return DecodeStep{};
  auto step = run_stages(input, out, output_cap(input.size(), max_output));
  if (!step) return fail(std::move(step).error());
  encoded_ += step->consumed;
  decoded_ += step->produced;
  if (auto exceeded = check_limits()) return fail(std::move(*exceeded));
  return step;
}

// Runs every stage, innermost output first bounded by `max_output` and each link by
// kLinkCapacity, until the output is full or no stage can move.
Result<DecodeStep> DecoderChain::run_stages(std::span<const std::byte> input, DecodeOutput& out,
                                            std::size_t max_output) {
  DecodeStep total;
  const std::size_t last = stages_.size() - 1;
  bool moved = true;
  while (moved && total.produced < max_output) {
    moved = false;
    for (std::size_t i = 0; i <= last; ++i) {
      const auto source = i == 0 ? input.subspan(total.consumed) : links_[i - 1].readable();
      const std::size_t room = i == last
                                   ? max_output - total.produced
                                   : kLinkCapacity - std::min(kLinkCapacity, links_[i].size());
      if (room == 0) continue;
      std::optional<QueueOutput> link;
      if (i != last) link.emplace(links_[i]);
      auto step = run_stage(i, source, i == last ? out : *link, room);
      if (!step) return std::move(step).error();
      if (i == 0) total.consumed += step->consumed;
      if (i == last) total.produced += step->produced;
      moved = moved || step->consumed != 0 || step->produced != 0;
    }
    // One stage decodes as far as it can in one call; a second round helps only
    // when links move data between stages.
    if (last == 0) break;
  }
  return total;
}

Result<DecodeStep> DecoderChain::run_stage(std::size_t i, std::span<const std::byte> input,
                                           DecodeOutput& out, std::size_t room) {
  auto step = stages_[i]->decode(input, out, room);
  if (step && i != 0) links_[i - 1].consume(step->consumed);
  return step;
}

std::optional<Error> DecoderChain::check_limits() const {
  if (limits_.max_decoded_size != 0 && decoded_ > limits_.max_decoded_size) {
    return Error(
        ErrorCode::decoded_too_large,
        "decoded body exceeds the limit of " + std::to_string(limits_.max_decoded_size) + " bytes");
  }
  if (limits_.max_ratio != 0 && decoded_ > kRatioGrace &&
      decoded_ > saturating_mul(limits_.max_ratio, encoded_)) {
    return Error(ErrorCode::decoded_too_large,
                 "decoded body exceeds " + std::to_string(limits_.max_ratio) +
                     ":1 compression ratio (possible decompression bomb)");
  }
  return std::nullopt;
}

// An empty encoded body finishes cleanly in every coding: a response with
// Content-Encoding: gzip and no body bytes lost nothing, and browsers accept it.
Result<void> DecoderChain::finish() {
  if (failed_) return *failed_;
  for (const ByteQueue& link : links_) {
    if (!link.empty()) {
      return fail(Error(ErrorCategory::usage,
                        "content decoding: finish() called before all decoded data was taken"));
    }
  }
  for (auto& stage : stages_) {
    if (auto done = stage->finish(); !done) return fail(std::move(done).error());
  }
  return {};
}

// Stages free their library state only between streams (mid-stream it holds the
// window that later back-references need); links go when they are empty.
std::size_t DecoderChain::release_scratch() {
  std::size_t freed = 0;
  for (auto& stage : stages_) freed += stage->release_scratch();
  for (ByteQueue& link : links_) freed += link.release_if_empty();
  return freed;
}

std::string_view trim(std::string_view text) noexcept {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// nullptr for identity, which is a no-op inside a list as well.
Result<std::unique_ptr<ContentDecoder>> make_stage(std::string_view coding) {
  if (equals_ignoring_case(coding, "identity")) return std::unique_ptr<ContentDecoder>{};
  if (equals_ignoring_case(coding, "gzip") || equals_ignoring_case(coding, "x-gzip")) {
    return std::unique_ptr<ContentDecoder>(new GzipDecoder(GzipDecoder::Format::gzip));
  }
  if (equals_ignoring_case(coding, "deflate")) {
    return std::unique_ptr<ContentDecoder>(new GzipDecoder(GzipDecoder::Format::deflate));
  }
  if (equals_ignoring_case(coding, "br")) return std::unique_ptr<ContentDecoder>(new BrotliDecoder);
  if (equals_ignoring_case(coding, "zstd")) return std::unique_ptr<ContentDecoder>(new ZstdDecoder);
  std::string echoed(coding.substr(0, kMaxEchoedName));
  if (coding.size() > kMaxEchoedName) echoed += "...";
  return Error(ErrorCategory::decode, "content encoding '" + echoed + "' is not supported");
}

}  // namespace

// Content-Encoding lists codings in the order they were applied (RFC 9110 section
// 8.4), so decoding runs the list backwards. Empty list elements are allowed by the
// list syntax (RFC 9110 section 5.6.1) and skipped.
Result<std::unique_ptr<ContentDecoder>> ContentDecoder::create(std::string_view content_encoding,
                                                               DecodeLimits limits) {
  std::vector<std::unique_ptr<ContentDecoder>> stages;
  std::size_t codings = 0;
  while (true) {
    const std::size_t comma = content_encoding.find(',');
    const std::string_view coding = trim(content_encoding.substr(0, comma));
    if (!coding.empty()) {
      auto stage = make_stage(coding);
      if (!stage) return std::move(stage).error();
      if (*stage != nullptr && ++codings > kMaxCodings) {
        return Error(ErrorCategory::decode,
                     "content encoding lists more than 4 codings; at most 4 are supported");
      }
      if (*stage != nullptr) stages.push_back(std::move(*stage));
    }
    if (comma == std::string_view::npos) break;
    content_encoding.remove_prefix(comma + 1);
  }
  if (stages.empty()) return std::unique_ptr<ContentDecoder>{};
  std::reverse(stages.begin(), stages.end());
  return std::unique_ptr<ContentDecoder>(new DecoderChain(std::move(stages), limits));
}

Result<DecodeStep> ContentDecoder::decode(std::span<const std::byte> input, ByteQueue& out,
                                          std::size_t max_output) {
  QueueOutput queue(out);
  return decode(input, queue, max_output);
}

std::span<std::byte> decode_output_room(ByteQueue& out, std::size_t limit) {
  const std::span<std::byte> room = out.prepare(std::min(limit, kDecodeOutputStep));
  return room.first(std::min(room.size(), limit));
}

// Each block starts with its size, so counted_free can subtract it; the header is
// max_align_t wide to keep the block as aligned as malloc's.
void* counted_alloc(std::size_t& total, std::size_t size) noexcept {
  constexpr std::size_t kHeader = alignof(std::max_align_t);
  if (size > std::numeric_limits<std::size_t>::max() - kHeader) return nullptr;
  auto* raw = static_cast<unsigned char*>(std::malloc(size + kHeader));
  if (raw == nullptr) return nullptr;
  std::memcpy(raw, &size, sizeof size);
  total += size;
  return raw + kHeader;
}

void counted_free(std::size_t& total, void* block) noexcept {
  if (block == nullptr) return;
  constexpr std::size_t kHeader = alignof(std::max_align_t);
  auto* raw = static_cast<unsigned char*>(block) - kHeader;
  std::size_t size = 0;
  std::memcpy(&size, raw, sizeof size);
  total -= size;
  std::free(raw);
}

}  // namespace sluice
