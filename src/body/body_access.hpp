#pragma once
// BodyAccess: how the library makes the public body handles around its internals
// (a BodyReader over a response's StagingBuffer) and reaches them (the SourceQueue
// behind a BodyWriter), which the public headers keep private. Not part of the API.
// Ownership: static functions; any thread (each handle keeps its own rules).

#include <memory>

#include "sluice/body.hpp"

namespace sluice {

struct BodyAccess {
  static BodyReader reader(std::shared_ptr<StagingBuffer> staging) {
    return BodyReader(std::move(staging));
  }
  static const std::shared_ptr<SourceQueue>& queue(const BodyWriter& writer) {
    return writer.queue_;
  }
};

}  // namespace sluice
