// RSS sampling and judging for sluice-soak.

#include "soak/soak_rss.hpp"

#include <malloc.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>
#include <string_view>

namespace sluice::soak {
namespace {

double average(const std::vector<RssSample>& samples, std::size_t begin, std::size_t end) {
  double sum = 0;
  for (std::size_t i = begin; i < end; ++i) sum += samples[i].mib;
  return end > begin ? sum / static_cast<double>(end - begin) : 0;
}

double slope_per_minute(const std::vector<RssSample>& samples, std::size_t begin) {
  const double n = static_cast<double>(samples.size() - begin);
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = begin; i < samples.size(); ++i) {
    sx += samples[i].seconds;
    sy += samples[i].mib;
    sxx += samples[i].seconds * samples[i].seconds;
    sxy += samples[i].seconds * samples[i].mib;
  }
  const double denominator = n * sxx - sx * sx;
  return denominator > 0 ? (n * sxy - sx * sy) / denominator * 60.0 : 0;
}

}  // namespace

std::optional<double> read_rss_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (!line.starts_with("VmRSS:")) continue;
    const std::size_t start = line.find_first_of("0123456789");
    if (start == std::string::npos) return std::nullopt;
    unsigned long kib = 0;
    const auto [end, ec] = std::from_chars(line.data() + start, line.data() + line.size(), kib);
    if (ec != std::errc()) return std::nullopt;
    return static_cast<double>(kib) / 1024.0;  // the kernel reports kB (KiB)
  }
  return std::nullopt;
}

std::optional<double> read_heap_in_use_mib() {
  const struct mallinfo2 info = mallinfo2();
  // A sanitizer's allocator replaces glibc's: glibc's arenas then hold nothing.
  if (info.arena == 0 && info.hblkhd == 0) return std::nullopt;
  return static_cast<double>(info.uordblks + info.hblkhd) / (1024.0 * 1024.0);
}

RssJudgement judge_rss(const std::vector<RssSample>& samples) {
  RssJudgement judgement;
  if (samples.empty()) return judgement;
  judgement.first_mib = samples.front().mib;
  judgement.last_mib = samples.back().mib;
  for (const RssSample& sample : samples)
    judgement.peak_mib = std::max(judgement.peak_mib, sample.mib);
  if (samples.size() < 6) return judgement;
  const std::size_t third = samples.size() / 3;
  const std::size_t middle_begin = third;
  const std::size_t last_begin = samples.size() - third;
  judgement.middle_third_mib = average(samples, middle_begin, last_begin);
  judgement.last_third_mib = average(samples, last_begin, samples.size());
  judgement.growth_mib = judgement.last_third_mib - judgement.middle_third_mib;
  judgement.slope_mib_per_min = slope_per_minute(samples, middle_begin);
  judgement.judged = true;
  return judgement;
}

}  // namespace sluice::soak
