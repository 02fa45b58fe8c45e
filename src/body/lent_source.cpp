#include "body/lent_source.hpp"

#include <algorithm>
#include <utility>

namespace sluice {

LentBody::LentBody(std::span<const std::byte> bytes, std::function<void()> release)
    : bytes_(bytes), lease_(std::make_shared<LentLease>(std::move(release))) {}

// A destructor must not throw: a post that fails (out of memory) gives the bytes
// back here instead, and a `release` that throws is the caller's bug, not a reason
// to end the process.
LentLease::~LentLease() {
  if (!release) return;
  PostToHttpThread where;
  {
    std::lock_guard lock(mu);
    where = std::move(route);
  }
  try {
    if (where) {
      where(release);
      return;
    }
  } catch (...) {}
  try {
    release();
  } catch (...) {}
}

namespace {

/// The release rule for lent bytes: once the transport took the last byte of a body
/// over the threshold, the lease goes (the caller may free its buffer now rather than
/// when the response ends), on the HTTP thread that finished with it.
class LentSource final : public RequestBodySource {
 public:
  LentSource(std::span<const std::byte> bytes, std::shared_ptr<LentLease> lease,
             std::size_t release_threshold)
      : bytes_(bytes), lease_(std::move(lease)), threshold_(release_threshold) {}

  std::optional<std::uint64_t> length() const override { return bytes_.size(); }
  SourceChunk peek(std::size_t max) override {
    if (offset_ == bytes_.size()) return {SourceChunk::State::end, {}, {}};
    const auto rest = bytes_.subspan(offset_);
    return {SourceChunk::State::data, rest.first(std::min(max, rest.size())), {}};
  }
  void consume(std::size_t n) override {
    offset_ += n;
    if (offset_ == bytes_.size() && bytes_.size() > threshold_ && lease_) {
      lease_.reset();
      released_ = true;
    }
  }
  void set_waker(std::function<void()>) override {}
  bool rewind() override {
    if (released_) return false;
    offset_ = 0;
    return true;
  }
  /// The caller's memory, not the library's: nothing to count.
  std::size_t held_bytes() const override { return 0; }
  std::optional<std::string_view> whole_in_memory() const override {
    if (released_) return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
  }

 private:
  const std::span<const std::byte> bytes_;
  std::shared_ptr<LentLease> lease_;
  const std::size_t threshold_;
  std::size_t offset_ = 0;
  bool released_ = false;
};

}  // namespace

std::unique_ptr<RequestBodySource> make_lent_source(LentBody& body, const BodyEnvironment& env) {
  std::shared_ptr<LentLease> lease = std::move(LentBodyAccess::lease(body));
  if (lease && env.run_user) {
    std::lock_guard lock(lease->mu);
    lease->route = env.run_user;
  }
  return std::make_unique<LentSource>(body.bytes(), std::move(lease), env.release_threshold);
}

}  // namespace sluice
