#pragma once
// ProgressSource: a RequestBodySource that passes everything to the real one and
// tells its transfer each time the transport takes bytes (and how many), so the idle
// timeout and the low-speed check see an upload moving (a server reading a large body slowly sends nothing meanwhile),
// and remembers when the source itself had nothing (then the wait is not the
// server's fault).
// Ownership: owned by its Transfer; HTTP thread only.

#include <functional>
#include <memory>
#include <utility>

#include "connection/connection.hpp"

namespace sluice {

class ProgressSource final : public RequestBodySource {
 public:
  ProgressSource(std::unique_ptr<RequestBodySource> inner,
                 std::function<void(std::size_t taken)> on_progress)
      : inner_(std::move(inner)), on_progress_(std::move(on_progress)) {}

  std::optional<std::uint64_t> length() const override { return inner_->length(); }
  SourceChunk peek(std::size_t max) override {
    SourceChunk chunk = inner_->peek(max);
    waiting_for_producer_ = chunk.state == SourceChunk::State::waiting;
    return chunk;
  }
  void consume(std::size_t n) override {
    inner_->consume(n);
    if (n > 0) on_progress_(n);
  }
  /// The transport last found nothing to send: our producer (or the file pool) is
  /// behind, so silence is ours, not the server's.
  bool waiting_for_producer() const noexcept { return waiting_for_producer_; }
  void set_waker(std::function<void()> wake) override { inner_->set_waker(std::move(wake)); }
  bool rewind() override { return inner_->rewind(); }
  std::size_t held_bytes() const override { return inner_->held_bytes(); }
  std::optional<std::string_view> whole_in_memory() const override {
    return inner_->whole_in_memory();
  }

 private:
  std::unique_ptr<RequestBodySource> inner_;
  std::function<void(std::size_t)> on_progress_;
  bool waiting_for_producer_ = false;
};

}  // namespace sluice
