#pragma once
// Trace: one human-readable line per notable event of the HTTP thread, with stable
// ids ("c3 h1: paused: reader is 262144 bytes behind"). Off unless the Client was
// given a sink (sluice -v); a line is only built when it is on.
// Ownership: owned by ClientCore; used and called on the HTTP thread only.

#include <functional>
#include <string>
#include <string_view>

namespace sluice {

class Trace {
 public:
  using Sink = std::function<void(std::string_view line)>;
  Trace() = default;
  explicit Trace(Sink sink) : sink_(std::move(sink)) {}

  bool on() const noexcept { return static_cast<bool>(sink_); }
  void emit(const std::string& line) const {
    if (sink_) sink_(line);
  }

 private:
  Sink sink_;
};

}  // namespace sluice
