// Rule 2's second half (return_released_memory): large copies that glibc served from
// its heap, once freed, leave the process's resident memory when the releasing thread
// has released kTrimAfterReleased bytes. glibc only: the sanitizers bring allocators
// of their own, and there is nothing of glibc's to trim.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/memory_rules.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SLUICE_TEST_OWN_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLUICE_TEST_OWN_ALLOCATOR 1
#endif

namespace sluice {
namespace {

// Not compiled where the allocator is not glibc's: a test that cannot run there is
// left out rather than reported as skipped.
#if !defined(SLUICE_TEST_OWN_ALLOCATOR) && defined(__GLIBC__)
constexpr std::size_t kMiB = 1u << 20;

std::size_t resident_bytes() {
  long pages = 0;
  long resident = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  if (std::fscanf(statm, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(statm);
  return static_cast<std::size_t>(resident) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// glibc's thresholds fixed for one test: 1 MiB blocks come from the heap, and a free
// never trims the heap by itself, so only return_released_memory can return them.
// An upload burst gets there by itself (its first large free raises the dynamic mmap
// threshold), but how far depends on what the process freed before: with other
// tests in the same process the blocks could be mmapped, or the heap's top shrink
// on free, and the test would measure the heap's history rather than the rule.
class FixedMallocThresholds {
 public:
  FixedMallocThresholds()
      : set_(mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024) == 1 &&
             mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024) == 1) {}
  // glibc's default values, but fixed from now on: no setting brings back the dynamic
  // threshold. ctest runs each test in a process of its own, so only a direct run of
  // the whole binary continues with them.
  ~FixedMallocThresholds() {
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  }
  bool set() const { return set_; }
  FixedMallocThresholds(const FixedMallocThresholds&) = delete;
  FixedMallocThresholds& operator=(const FixedMallocThresholds&) = delete;

 private:
  bool set_;
};

TEST(ReturnReleasedMemory, FreedHeapBlocksLeaveResidentMemory) {
  const FixedMallocThresholds thresholds;
  ASSERT_TRUE(thresholds.set()) << "glibc refused the thresholds";
  return_released_memory(kTrimAfterReleased);  // this thread's count starts at 0
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 48; ++i) {
    blocks.push_back(std::make_unique<char[]>(kMiB));
    std::memset(blocks.back().get(), 1, kMiB);  // resident
  }
  // A live block, likely above them: the trim must return pages in the middle.
  auto pin = std::make_unique<char[]>(64 * 1024);
  std::memset(pin.get(), 1, 64 * 1024);
  blocks.clear();
  const std::size_t before = resident_bytes();
  return_released_memory(kTrimAfterReleased - 1);  // not yet: below the step
  const std::size_t below_step = resident_bytes();
  return_released_memory(1);
  const std::size_t after = resident_bytes();
  EXPECT_GT(below_step + 16 * kMiB, before) << "trimmed before kTrimAfterReleased bytes";
  EXPECT_LT(after + 32 * kMiB, before)
      << "48 MiB of freed heap blocks stayed resident: " << before / kMiB << " MiB before, "
      << after / kMiB << " MiB after";
}
#endif

}  // namespace
}  // namespace sluice
