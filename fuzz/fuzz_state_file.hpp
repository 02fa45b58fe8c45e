#pragma once
// What the state-file targets (hsts_file, alt_svc_file, tls_session_file) share: a
// file's text taken the way a Client takes it (ClientOptions::state: the file is
// read into the caches by load_state_files, and written back by
// snapshot_state_files), so a target checks the whole load-and-save path, not only
// the line parser. The text goes through a real file, in a directory of this
// process's own under /dev/shm (memory, so each run stays fast).
// Ownership: one per fuzzer process; the fuzzer's thread only.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/state_files.hpp"
#include "client/tls_session_state.hpp"
#include "core/state_file.hpp"
#include "fuzz_input.hpp"
#include "quic/quic_ticket_store.hpp"
#include "tls/tls_session_cache.hpp"
#include "web/alt_svc.hpp"
#include "web/hsts.hpp"

namespace sluice::fuzz {

enum class StateFileKind { alt_svc, hsts, tls_sessions };

/// The lines of `text` that are neither blank nor comments: each must be an entry or
/// a skipped line.
inline std::size_t content_lines(std::string_view text) {
  std::size_t count = 0;
  for_each_state_line(text, [&](std::size_t, std::string_view) {
    ++count;
    return std::string();
  });
  return count;
}

/// The hsts_file and alt_svc_file targets' input: a byte for the cache's size
/// (1 + byte % 64 entries), a byte for the wall clock (byte * 2^24 s, from 1970 to
/// 2105; 255: the year 9999), then the file's text.
struct StateFileInput {
  std::size_t capacity = 1;
  UnixSeconds wall_now = 0;
  std::string_view text;
};

inline StateFileInput read_state_file_input(FuzzInput& in) {
  StateFileInput input;
  input.capacity = 1 + in.byte() % 64;
  const std::uint8_t clock = in.byte();
  input.wall_now = clock == 255 ? 253402300799 : UnixSeconds{clock} << 24;
  input.text = in.take(in.size());
  return input;
}

/// The caches a Client keeps in state files, fresh for each load.
struct FuzzStateCaches {
  explicit FuzzStateCaches(std::size_t capacity)
      : alt_svc(capacity), hsts(capacity), tcp(capacity), quic(capacity) {}
  AltSvcCache alt_svc;
  HstsStore hsts;
  TlsSessionState tls{"0123456789abcdef"};
  TlsSessionCache tcp;
  QuicTicketStore quic;
};

/// The file this process writes its state file to, in a directory made on first use
/// and removed when the process exits.
class StateFileDir {
 public:
  StateFileDir() : dir_("/dev/shm/sluice-fuzz-" + std::to_string(::getpid())) {
    ::mkdir(dir_.c_str(), 0700);
  }
  ~StateFileDir() {
    std::remove(path().c_str());
    ::rmdir(dir_.c_str());
  }
  std::string path() const { return dir_ + "/state"; }

 private:
  std::string dir_;
};

inline const std::string& state_file_path() {
  static const StateFileDir dir;
  static const std::string path = dir.path();
  return path;
}

/// What a Client with `capacity` entries per cache writes back after loading `text` as
/// the state file of `kind` at `wall_now` (`now` on its steady clock); `adopt_quic`
/// as if an HTTP/3 connection had made the QUIC context.
inline std::string through_client(StateFileKind kind, std::string_view text, std::size_t capacity,
                                  UnixSeconds wall_now, bool adopt_quic = false) {
  const std::string& path = state_file_path();
  check(replace_state_file("fuzz state file", path, text).ok(), "the state file is written");
  StateFileOptions options;
  options.alt_svc_file = kind == StateFileKind::alt_svc ? path : "";
  options.hsts = kind == StateFileKind::hsts;
  options.hsts_file = kind == StateFileKind::hsts ? path : "";
  options.tls_session_file = kind == StateFileKind::tls_sessions ? path : "";
  FuzzStateCaches caches(capacity);
  StateCaches view{caches.alt_svc, &caches.hsts, &caches.tls, &caches.tcp, nullptr};
  const TimePoint now{std::chrono::hours(1)};
  load_state_files(options, view, now, wall_now, Trace());
  if (adopt_quic) {
    caches.tls.adopt_quic(caches.quic, wall_now);
    view.quic_sessions = &caches.quic;
  }
  const std::vector<StateFileText> files = snapshot_state_files(options, view, now, wall_now);
  check(files.size() == 1 && files.front().path == path, "a loaded state file is saved");
  return files.front().text;
}

inline std::vector<std::string_view> sorted_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

/// The state-file contract: a Client's saved file, loaded and saved again, is the
/// same file (what was kept stays kept, nothing new appears). Returns the saved text.
inline std::string check_saved_file_is_stable(StateFileKind kind, std::string_view text,
                                              std::size_t capacity, UnixSeconds wall_now,
                                              bool adopt_quic = false) {
  const std::string saved = through_client(kind, text, capacity, wall_now, adopt_quic);
  if (debug_on()) std::fprintf(stderr, "saved file:\n%s", saved.c_str());
  const std::string again = through_client(kind, saved, capacity, wall_now, adopt_quic);
  // The same lines; their order is the caches' (an Alt-Svc origin keyed
  // "[2001:db8::0]" on load sorts after [2001:db8::1] once saved as "[2001:db8::]").
  check(sorted_lines(again) == sorted_lines(saved),
        "a saved state file, loaded and saved again, is the same");
  return saved;
}

}  // namespace sluice::fuzz
