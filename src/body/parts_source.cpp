#include "body/parts_source.hpp"

namespace sluice {
namespace {

class PartsSource final : public RequestBodySource {
 public:
  explicit PartsSource(std::vector<std::unique_ptr<RequestBodySource>> parts)
      : parts_(std::move(parts)) {
    std::uint64_t total = 0;
    for (const auto& part : parts_) {
      const auto length = part->length();
      if (!length) {
        length_.reset();
        return;
      }
      total += *length;
    }
    length_ = total;
  }

  std::optional<std::uint64_t> length() const override { return length_; }

  // An ended part hands over to the next at once, so the transport never sees an
  // empty data chunk between parts.
  SourceChunk peek(std::size_t max) override {
    while (current_ < parts_.size()) {
      SourceChunk chunk = parts_[current_]->peek(max);
      if (chunk.state != SourceChunk::State::end) return chunk;
      ++current_;
    }
    return {SourceChunk::State::end, {}, {}};
  }
  void consume(std::size_t n) override {
    if (current_ < parts_.size()) parts_[current_]->consume(n);
  }
  void set_waker(std::function<void()> wake) override {
    for (auto& part : parts_) part->set_waker(wake);
  }
  bool rewind() override {
    for (auto& part : parts_) {
      if (!part->rewind()) return false;
    }
    current_ = 0;
    return true;
  }
  std::size_t held_bytes() const override {
    std::size_t held = 0;
    for (const auto& part : parts_) held += part->held_bytes();
    return held;
  }

 private:
  std::vector<std::unique_ptr<RequestBodySource>> parts_;
  std::optional<std::uint64_t> length_;
  std::size_t current_ = 0;  // the part being sent
};

}  // namespace

std::unique_ptr<RequestBodySource> make_parts_source(
    std::vector<std::unique_ptr<RequestBodySource>> parts) {
  return std::make_unique<PartsSource>(std::move(parts));
}

}  // namespace sluice
