// The public BodyWriter: the producer's handle on a SourceQueue.
#include "body/source_queue.hpp"
#include "core/time_source.hpp"
#include "sluice/body.hpp"

namespace sluice {

std::shared_ptr<BodyWriter> BodyWriter::create(std::size_t mark) {
  return std::shared_ptr<BodyWriter>(new BodyWriter(std::make_shared<SourceQueue>(mark)));
}

BodyWriter::BodyWriter(std::shared_ptr<SourceQueue> queue) : queue_(std::move(queue)) {}

BodyWriter::~BodyWriter() = default;

Result<void> BodyWriter::write(std::span<const std::byte> bytes) {
  auto written = queue_->write(bytes, std::nullopt);
  if (!written) return std::move(written).error();
  return {};
}

Result<void> BodyWriter::write(std::string_view text) { return write(as_bytes(text)); }

Result<bool> BodyWriter::write_for(std::span<const std::byte> bytes,
                                   std::chrono::milliseconds timeout) {
  return queue_->write(bytes, steady_now() + timeout);
}

void BodyWriter::when_writable(std::function<void()> ready) {
  queue_->when_writable(std::move(ready));
}

std::size_t BodyWriter::queued() const { return queue_->queued(); }

void BodyWriter::close() { queue_->close(); }

void BodyWriter::abort(std::string reason) { queue_->abort(std::move(reason)); }

}  // namespace sluice
