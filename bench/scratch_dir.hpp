#pragma once
// Where the download benchmarks (download, resumption) put their files: a scratch
// directory of their own, emptied after each run. Main thread only.

#include <cstdint>
#include <optional>
#include <string>

#include "bench/bench_options.hpp"
#include "sluice/error.hpp"

namespace sluice::bench {

/// A directory made with mkdtemp under the chosen parent, removed (empty) at the end.
/// Owned by the benchmark that made it.
class ScratchDir {
 public:
  static Result<ScratchDir> create(const std::string& parent);
  ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  ScratchDir& operator=(ScratchDir&&) = delete;
  ~ScratchDir();
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

/// --dir, else $TMPDIR, else /tmp.
std::string scratch_parent(const BenchOptions& options);

/// The size of the file at `path`, or nothing when there is none.
std::optional<std::uint64_t> file_size(const std::string& path);

/// The file and whatever a failed run may have left beside it (sluice's control file
/// and quarantined bytes, aria2c's control file), so the scratch directory empties.
void remove_outputs(const std::string& path);

}  // namespace sluice::bench
