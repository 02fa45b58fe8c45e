#include "body/request_body.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "body/body_access.hpp"
#include "body/lent_source.hpp"
#include "body/parts_source.hpp"
#include "body/source_queue.hpp"
#include "body/upload_budget.hpp"
#include "core/byte_queue.hpp"
#include "core/memory_rules.hpp"
#include "core/worker_pool.hpp"

namespace sluice {

namespace {

/// Owned bytes. The release rule: once the transport took the last byte, a large
/// copy is freed here on the HTTP thread instead of living until the response ends;
/// its share of the Client's upload budget goes back then too, whatever its size.
class BytesSource final : public RequestBodySource {
 public:
  BytesSource(std::string bytes, std::size_t release_threshold, UploadShare share)
      : bytes_(std::move(bytes)),
        length_(bytes_.size()),
        threshold_(release_threshold),
        share_(std::move(share)) {}

  std::optional<std::uint64_t> length() const override { return length_; }
  SourceChunk peek(std::size_t max) override {
    if (offset_ == length_) return {SourceChunk::State::end, {}, {}};
    const auto rest = as_bytes(bytes_).subspan(offset_);
    return {SourceChunk::State::data, rest.first(std::min(max, rest.size())), {}};
  }
  void consume(std::size_t n) override {
    offset_ += n;
    if (offset_ == length_) {
      share_.release();
    } else {
      share_.note_taken(n);
    }
    if (offset_ == length_ && releases_off_owner(bytes_.capacity(), threshold_)) {
      const std::size_t freed = bytes_.capacity();
      std::string().swap(bytes_);
      released_ = true;
      return_released_memory(freed);
    }
  }
  void set_waker(std::function<void()>) override {}
  bool rewind() override {
    if (released_) return false;
    offset_ = 0;
    return true;
  }
  std::size_t held_bytes() const override { return released_ ? 0 : bytes_.capacity(); }
  std::optional<std::string_view> whole_in_memory() const override {
    if (released_) return std::nullopt;
    return std::string_view(bytes_);
  }

 private:
  std::string bytes_;
  const std::size_t length_;
  const std::size_t threshold_;
  std::size_t offset_ = 0;
  bool released_ = false;
  UploadShare share_;  // given back once the transport took the last byte
};

/// A file, read in pieces by file-pool jobs; one job in flight at a time, so the file
/// costs one piece of memory however large it is.
class FileSource final : public RequestBodySource {
 public:
  static constexpr std::size_t kPiece = 256 * 1024;

  FileSource(int fd, std::uint64_t length, std::string path, const BodyEnvironment& env)
      : state_(std::make_shared<Shared>()), length_(length), env_(env) {
    state_->fd = fd;
    state_->path = std::move(path);
  }
  ~FileSource() override {
    *alive_ = false;
    std::lock_guard lock(state_->mu);
    state_->abandoned = true;
    if (!state_->reading) ::close(state_->fd);
  }

  std::optional<std::uint64_t> length() const override { return length_; }

  SourceChunk peek(std::size_t max) override {
    if (error_) return {SourceChunk::State::failed, {}, error_};
    if (!piece_.empty()) {
      return {SourceChunk::State::data, piece_.readable().first(std::min(max, piece_.size())), {}};
    }
    if (next_offset_ >= length_ && !reading_) return {SourceChunk::State::end, {}, {}};
    if (!reading_) start_read();
    return {SourceChunk::State::waiting, {}, {}};
  }
  void consume(std::size_t n) override {
    piece_.consume(n);
    if (piece_.empty()) piece_.release_if_empty();
  }
  void set_waker(std::function<void()> wake) override { waker_ = std::move(wake); }
  // A read in flight is left to finish and its piece dropped (it belongs to the old
  // pass); the next peek starts again from the first byte.
  bool rewind() override {
    ++generation_;
    next_offset_ = 0;
    piece_.clear();
    error_.reset();
    return true;
  }
  std::size_t held_bytes() const override { return piece_.capacity(); }

 private:
  // Shared with the pool job, which may outlive this source (a cancelled request).
  struct Shared {
    std::mutex mu;
    int fd = -1;
    std::string path;
    bool abandoned = false;  // guarded by mu
    bool reading = false;    // guarded by mu
  };

  void start_read() {
    reading_ = true;
    const std::uint64_t offset = next_offset_;
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(kPiece, length_ - offset));
    auto shared = state_;
    {
      std::lock_guard lock(shared->mu);
      shared->reading = true;
    }
    auto post = env_.post;
    auto self = this;
    auto alive = alive_;
    const std::uint64_t generation = generation_;
    env_.file_pool->submit([shared, offset, want, post, self, alive, generation] {
      auto piece = std::make_shared<ByteQueue>();
      std::optional<Error> error;
      {
        std::lock_guard lock(shared->mu);
        shared->reading = false;
        if (shared->abandoned) {
          ::close(shared->fd);
          return;
        }
        auto room = piece->prepare(want);
        ssize_t got = ::pread(shared->fd, room.data(), want, static_cast<off_t>(offset));
        if (got < 0 || static_cast<std::size_t>(got) != want) {
          error = Error(ErrorCategory::io,
                        "cannot read request body file " + shared->path + ": " +
                            (got < 0 ? std::strerror(errno) : "file shrank while sending"));
        } else {
          piece->commit(want);
        }
      }
      post([self, alive, piece, error, generation]() mutable {
        if (!*alive) return;
        self->on_piece(generation, std::move(*piece), std::move(error));
      });
    });
  }

  void on_piece(std::uint64_t generation, ByteQueue piece, std::optional<Error> error) {
    reading_ = false;
    if (generation != generation_) {
      // Read before a rewind: not this pass's bytes. The waker makes the transport
      // peek again, which reads from the new offset.
      if (waker_) waker_();
      return;
    }
    if (error) {
      error_ = std::move(error);
    } else {
      next_offset_ += piece.size();
      piece_ = std::move(piece);
    }
    if (waker_) waker_();
  }

  std::shared_ptr<Shared> state_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  const std::uint64_t length_;
  BodyEnvironment env_;
  std::uint64_t next_offset_ = 0;
  std::uint64_t generation_ = 0;  // bumped by rewind; reads of an older pass are dropped
  bool reading_ = false;
  ByteQueue piece_;
  std::optional<Error> error_;
  std::function<void()> waker_;
};

/// A producer's stream, through its SourceQueue.
class StreamSource final : public RequestBodySource {
 public:
  StreamSource(std::shared_ptr<SourceQueue> queue, std::optional<std::uint64_t> length,
               const BodyEnvironment& env)
      : queue_(std::move(queue)), length_(length) {
    queue_->set_poster(env.post);
    if (env.run_user) queue_->set_user_runner(env.run_user);
    post_ = env.post;
  }
  ~StreamSource() override {
    queue_->shut(Error(ErrorCategory::cancelled, "request body: the request ended"));
  }

  std::optional<std::uint64_t> length() const override { return length_; }
  SourceChunk peek(std::size_t max) override {
    if (taken_.empty() && !closed_) {
      auto taken = queue_->take(taken_, max);
      if (taken.error) return {SourceChunk::State::failed, {}, taken.error};
      sent_ += taken.bytes;
      closed_ = taken.closed;
      if (length_ && sent_ > *length_) {
        return {SourceChunk::State::failed,
                {},
                Error(ErrorCategory::usage,
                      "request body: more bytes written than the declared length " +
                          std::to_string(*length_))};
      }
    }
    if (!taken_.empty()) {
      return {SourceChunk::State::data, taken_.readable().first(std::min(max, taken_.size())), {}};
    }
    if (!closed_) return {SourceChunk::State::waiting, {}, {}};
    if (length_ && sent_ != *length_) {
      return {SourceChunk::State::failed,
              {},
              Error(ErrorCategory::usage, "request body: closed after " + std::to_string(sent_) +
                                              " of the declared " + std::to_string(*length_) +
                                              " bytes")};
    }
    return {SourceChunk::State::end, {}, {}};
  }
  void consume(std::size_t n) override { taken_.consume(n); }
  void set_waker(std::function<void()> wake) override {
    auto post = post_;
    queue_->set_consumer_waker([post, wake] { post(wake); });
  }
  bool rewind() override { return sent_ == 0; }
  std::size_t held_bytes() const override { return taken_.capacity(); }

 private:
  std::shared_ptr<SourceQueue> queue_;
  std::optional<std::uint64_t> length_;
  PostToHttpThread post_;
  ByteQueue taken_;
  std::uint64_t sent_ = 0;
  bool closed_ = false;
};

Result<std::unique_ptr<RequestBodySource>> open_file_source(const FileBody& file,
                                                            const BodyEnvironment& env) {
  int fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Error(ErrorCategory::io,
                 "cannot open request body file " + file.path + ": " + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return Error(ErrorCategory::io, "request body file " + file.path + " is not a regular file");
  }
  return std::unique_ptr<RequestBodySource>(
      std::make_unique<FileSource>(fd, static_cast<std::uint64_t>(info.st_size), file.path, env));
}

// The owned parts are acquired from the upload budget together, once: acquired one
// by one, a part would wait for room that only this request's own earlier parts
// hold. Each owned part's source then holds its share; a part that fails to open
// gives back what no source came to hold.
Result<std::unique_ptr<RequestBodySource>> make_parts(PartsBody& parts,
                                                      const BodyEnvironment& env) {
  std::size_t owned = 0;
  for (const auto& part : parts.parts) {
    if (const auto* bytes = std::get_if<BytesBody>(&part)) owned += bytes->bytes.size();
  }
  BodyEnvironment part_env = env;
  if (env.upload_budget && !env.upload_acquired && owned > 0) {
    env.upload_budget->acquire(owned, env.may_wait_for_upload);
    part_env.upload_acquired = true;
  }
  std::vector<std::unique_ptr<RequestBodySource>> sources;
  std::size_t shared = 0;  // owned bytes whose sources hold their shares
  for (auto& part : parts.parts) {
    const auto* bytes = std::get_if<BytesBody>(&part);
    const std::size_t size = bytes != nullptr ? bytes->bytes.size() : 0;
    RequestBody one = std::visit([](auto& value) { return RequestBody(std::move(value)); }, part);
    auto source = make_body_source(one, part_env);
    if (!source) {
      if (part_env.upload_acquired) env.upload_budget->release(owned - shared);
      return std::move(source).error();
    }
    shared += size;
    sources.push_back(std::move(*source));
  }
  return make_parts_source(std::move(sources));
}

}  // namespace

Result<std::unique_ptr<RequestBodySource>> make_body_source(RequestBody& body,
                                                            const BodyEnvironment& env) {
  if (auto* bytes = std::get_if<BytesBody>(&body)) {
    if (env.upload_budget && !env.upload_acquired) {
      env.upload_budget->acquire(bytes->bytes.size(), env.may_wait_for_upload);
    }
    UploadShare share(env.upload_budget, bytes->bytes.size());  // before the move below
    return std::unique_ptr<RequestBodySource>(std::make_unique<BytesSource>(
        std::move(bytes->bytes), env.release_threshold, std::move(share)));
  }
  if (auto* file = std::get_if<FileBody>(&body)) return open_file_source(*file, env);
  if (auto* stream = std::get_if<StreamBody>(&body)) {
    if (!stream->writer) return Error(ErrorCategory::usage, "StreamBody without a writer");
    return std::unique_ptr<RequestBodySource>(
        std::make_unique<StreamSource>(BodyAccess::queue(*stream->writer), stream->length, env));
  }
  if (auto* parts = std::get_if<PartsBody>(&body)) return make_parts(*parts, env);
  if (auto* lent = std::get_if<LentBody>(&body)) return make_lent_source(*lent, env);
  return std::unique_ptr<RequestBodySource>();
}

}  // namespace sluice
