#pragma once
// Trace: one human-readable line per notable event of the HTTP thread, with stable
// ids ("c3 h1: paused: reader is 262144 bytes behind"). Off unless the Client was
// given a sink (sluice -v); a line is only built when it is on.
// Ownership: owned by ClientCore; used and called on the HTTP thread only.

#include <cstdint>
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
  /// "c<conn> <layer>: <what>" ("c3 h1: response 200"): every line about a connection.
  void emit(std::uint64_t conn, std::string_view layer, std::string_view what) const {
    if (sink_) sink_(connection_scope(conn) + std::string(layer) + ": " + std::string(what));
  }
  /// "c<conn> s<stream> <layer>: <what>": a stream of a multiplexed connection.
  void emit(std::uint64_t conn, std::int64_t stream, std::string_view layer,
            std::string_view what) const {
    if (sink_) {
      sink_(connection_scope(conn) + "s" + std::to_string(stream) + " " + std::string(layer) +
            ": " + std::string(what));
    }
  }

 private:
  static std::string connection_scope(std::uint64_t conn) {
    return "c" + std::to_string(conn) + " ";
  }
  Sink sink_;
};

/// One connection's lines under one layer name: "c3 h2: ..." and "c3 s5 h2: ...".
/// Ownership: a member of what traces; `trace` outlives it, `layer` is a literal.
class TraceScope {
 public:
  TraceScope(const Trace& trace, std::uint64_t conn, std::string_view layer)
      : trace_(&trace), conn_(conn), layer_(layer) {}
  bool on() const noexcept { return trace_->on(); }
  void conn(std::string_view what) const { trace_->emit(conn_, layer_, what); }
  void stream(std::int64_t stream, std::string_view what) const {
    trace_->emit(conn_, stream, layer_, what);
  }

 private:
  const Trace* trace_;
  std::uint64_t conn_;
  std::string_view layer_;
};

}  // namespace sluice
