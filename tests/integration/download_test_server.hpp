#pragma once
// RangeFileServer: a TestServer that serves one body at any path the way a test of
// downloads needs: byte ranges with If-Range against its ETag (or none at all), a
// body it can swap (a file that changed), connections it cuts after some bytes (a
// body that ends early), statuses it answers instead (503 with Retry-After).
// Thread-safety: the test thread calls the setters; handler threads read the state
// under mu_.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_server.hpp"

namespace sluice::test {

struct RangeRequestSeen {
  int index = 0;      ///< order of arrival over all connections, from 0
  std::string range;  ///< the Range header, "" when absent
  std::string if_range;
  std::string authorization;
};

class RangeFileServer {
 public:
  /// What to do with request `index` asking from byte `start`: -1 serves it whole;
  /// N >= 0 sends the head and N body bytes, then closes the connection.
  using CutRule = std::function<long long(int index, std::uint64_t start)>;
  /// A status to answer request `index` with instead (0: none).
  using StatusRule = std::function<int(int index)>;
  /// How many requests (over all connections) must have arrived before request
  /// `index` asking from byte `start` is answered; 0 answers at once. A held request
  /// waits for that event (30 s at most, so a broken test fails instead of hanging).
  using HoldRule = std::function<std::size_t(int index, std::uint64_t start)>;

  explicit RangeFileServer(std::string body, std::string etag = "\"v1\"")
      : state_(std::make_shared<State>()) {
    state_->body = std::move(body);
    state_->etag = std::move(etag);
    server_ = std::make_unique<TestServer>(
        [state = state_](ServerConnection& conn) { serve(*state, conn); });
  }

  std::string url(std::string_view path = "/file.bin") const { return server_->url(path); }
  void set_body(std::string body, std::string etag) {
    std::lock_guard lock(state_->mu);
    state_->body = std::move(body);
    state_->etag = std::move(etag);
  }
  /// Answers ranges whatever If-Range says (a server that does not implement it).
  void set_ignore_if_range(bool on) {
    std::lock_guard lock(state_->mu);
    state_->ignore_if_range = on;
  }
  void set_ranges(bool on) {
    std::lock_guard lock(state_->mu);
    state_->ranges = on;
  }
  void set_cut(CutRule rule) {
    std::lock_guard lock(state_->mu);
    state_->cut = std::move(rule);
  }
  void set_status(StatusRule rule) {
    std::lock_guard lock(state_->mu);
    state_->status = std::move(rule);
  }
  void set_hold(HoldRule rule) {
    std::lock_guard lock(state_->mu);
    state_->hold = std::move(rule);
  }
  void set_content_disposition(std::string value) {
    std::lock_guard lock(state_->mu);
    state_->disposition = std::move(value);
  }
  std::vector<RangeRequestSeen> seen() const {
    std::lock_guard lock(state_->mu);
    return state_->seen;
  }

 private:
  struct State {
    mutable std::mutex mu;
    std::string body;
    std::string etag;
    bool ranges = true;
    bool ignore_if_range = false;
    CutRule cut;
    StatusRule status;
    HoldRule hold;
    std::condition_variable arrived;  // a request was seen
    std::string disposition;
    std::vector<RangeRequestSeen> seen;
  };

  // "bytes=A-B" or "bytes=A-": [first, last] within size, or nullopt.
  static std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_range(std::string_view value,
                                                                            std::uint64_t size) {
    if (value.substr(0, 6) != "bytes=") return std::nullopt;
    value.remove_prefix(6);
    const auto dash = value.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    std::uint64_t first = 0, last = size ? size - 1 : 0;
    auto head = value.substr(0, dash), tail = value.substr(dash + 1);
    if (std::from_chars(head.data(), head.data() + head.size(), first).ec != std::errc())
      return std::nullopt;
    if (!tail.empty() &&
        std::from_chars(tail.data(), tail.data() + tail.size(), last).ec != std::errc()) {
      return std::nullopt;
    }
    if (first >= size) return std::nullopt;
    if (last >= size) last = size - 1;
    return std::make_pair(first, last);
  }

  static void serve(State& state, ServerConnection& conn) {
    while (auto request = conn.read_request(std::chrono::seconds(30))) {
      if (!answer(state, conn, *request)) return;
    }
  }

  // One response; false when the connection was cut.
  static bool answer(State& state, ServerConnection& conn, const ReceivedRequest& request) {
    std::unique_lock lock(state.mu);
    const int index = static_cast<int>(state.seen.size());
    const std::string range_header(request.headers.get("range").value_or(""));
    const std::string if_range(request.headers.get("if-range").value_or(""));
    state.seen.push_back({index, range_header, if_range,
                          std::string(request.headers.get("authorization").value_or(""))});
    state.arrived.notify_all();
    const std::string body = state.body;  // a copy: the test may swap it meanwhile
    const std::string etag = state.etag;
    const bool ranges =
        state.ranges && (state.ignore_if_range || if_range.empty() || if_range == etag);
    const int status_override = state.status ? state.status(index) : 0;
    const bool advertise = state.ranges;
    std::string head_extra;
    if (!state.disposition.empty())
      head_extra += "Content-Disposition: " + state.disposition + "\r\n";
    auto range =
        ranges && !range_header.empty() ? parse_range(range_header, body.size()) : std::nullopt;
    const long long cut = state.cut ? state.cut(index, range ? range->first : 0) : -1;
    const std::size_t hold = state.hold ? state.hold(index, range ? range->first : 0) : 0;
    state.arrived.wait_for(lock, std::chrono::seconds(30),
                           [&state, hold] { return state.seen.size() >= hold; });
    lock.unlock();
    if (status_override != 0) {
      std::string head = "HTTP/1.1 " + std::to_string(status_override) +
                         " Busy\r\nRetry-After: 0\r\nContent-Length: 4\r\n\r\nbusy";
      return conn.write(head);
    }
    std::string head;
    std::string_view part = body;
    if (ranges && !range_header.empty() && !range) {
      head = "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" +
             std::to_string(body.size()) + "\r\nContent-Length: 0\r\n";
      part = {};
    } else if (range) {
      part = part.substr(range->first, range->second - range->first + 1);
      head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " +
             std::to_string(range->first) + "-" + std::to_string(range->second) + "/" +
             std::to_string(body.size()) + "\r\nContent-Length: " + std::to_string(part.size()) +
             "\r\n";
    } else {
      head = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    }
    head += "ETag: " + etag + "\r\n" + head_extra;
    if (advertise) head += "Accept-Ranges: bytes\r\n";
    head += "\r\n";
    if (!conn.write(head)) return false;
    if (cut >= 0 && static_cast<std::size_t>(cut) < part.size()) {
      conn.write(part.substr(0, static_cast<std::size_t>(cut)));
      conn.close();
      return false;
    }
    return conn.write(part);
  }

  std::shared_ptr<State> state_;
  std::unique_ptr<TestServer> server_;
};

/// A directory of its own for one test, removed with everything in it at the end.
/// A death test's child process (which runs the test again from its start) finds
/// its parent's directory through SLUICE_SCRATCH_OWNER, set by share_with_children().
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const char* owner = std::getenv("SLUICE_SCRATCH_OWNER");
    path_ = ::testing::TempDir() + "sluice-download-" +
            (owner ? std::string(owner) : std::to_string(::getpid())) + "-" +
            (info ? std::string(info->name()) : std::string("x"));
    for (char& c : path_) {
      if (c == '/' && &c > path_.data() + ::testing::TempDir().size()) c = '_';
    }
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  static void share_with_children() {
    ::setenv("SLUICE_SCRATCH_OWNER", std::to_string(::getpid()).c_str(), 1);
  }
  static void stop_sharing() { ::unsetenv("SLUICE_SCRATCH_OWNER"); }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline bool file_exists(const std::string& path) { return std::filesystem::exists(path); }

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string sha256_of_file(const std::string& path) { return sha256_hex(read_file(path)); }

}  // namespace sluice::test
