// The download benchmarks' scratch directory (see scratch_dir.hpp). Main thread only.

#include "bench/scratch_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace sluice::bench {

Result<ScratchDir> ScratchDir::create(const std::string& parent) {
  std::string pattern = parent + "/sluice-bench-download.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Error(ErrorCategory::io, "cannot make a scratch directory in " + parent + ": " +
                                        std::strerror(errno) + " (choose one with --dir)");
  }
  return ScratchDir(std::move(pattern));
}

ScratchDir::~ScratchDir() {
  if (!path_.empty()) ::rmdir(path_.c_str());
}

std::string scratch_parent(const BenchOptions& options) {
  if (!options.dir.empty()) return options.dir;
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
}

std::optional<std::uint64_t> file_size(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(info.st_size);
}

void remove_outputs(const std::string& path) {
  for (const char* suffix : {"", ".sluice", ".sluice-bad", ".aria2"}) {
    ::unlink((path + suffix).c_str());
  }
}

}  // namespace sluice::bench
