#include "download/download_ranges.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <utility>

#include "tools/content_range.hpp"

namespace sluice {
namespace {

TEST(SplitPoint, HalvesOfAtLeastTheMinimumOrNone) {
  EXPECT_EQ(split_point(100, 20, 10), 110u);
  EXPECT_EQ(split_point(100, 21, 10), 111u);  // the first half keeps the odd byte
  EXPECT_EQ(split_point(100, 19, 10), std::nullopt);
  EXPECT_EQ(split_point(0, 2, 0), 1u);  // a minimum of 0 means 1
  // 2 * 2^63 wraps to 0 in 64 bits: a huge minimum must still refuse, not split.
  EXPECT_EQ(split_point(0, 1000, std::uint64_t{1} << 63), std::nullopt);
}

TEST(MergeCompleteRanges, ACompleteRangeFoldsIntoTheNextOne) {
  const std::vector<RangeSpec> ranges = {
      {0, 100, 100}, {100, 200, 100}, {200, 300, 40}, {300, 400, 100}, {400, std::nullopt, 7}};
  const auto merged = merge_complete_ranges(ranges);
  // 0-100 and 100-200 are done: with 200-300's 40 bytes, 240 contiguous from 0.
  // 300-400 is done too, and folds into the open-ended range after it.
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0], (RangeSpec{0, 300, 240}));
  EXPECT_EQ(merged[1], (RangeSpec{300, std::nullopt, 107}));
}

TEST(MergeCompleteRanges, RangesThatDoNotMeetStayApart) {
  const std::vector<RangeSpec> ranges = {{0, 100, 100}, {150, 200, 0}};
  EXPECT_EQ(merge_complete_ranges(ranges), ranges);
  const std::vector<RangeSpec> all_done = {{0, 10, 10}, {10, 20, 10}};
  EXPECT_EQ(merge_complete_ranges(all_done), (std::vector<RangeSpec>{{0, 20, 20}}));
}

TEST(PlanRanges, SplitsEvenlyAndCoversEveryByte) {
  const auto plan = plan_ranges(0, 10'000'003, 4, 1);
  ASSERT_EQ(plan.size(), 4u);
  std::uint64_t next = 0;
  for (const auto& range : plan) {
    EXPECT_EQ(range.start, next);
    ASSERT_TRUE(range.end.has_value());
    EXPECT_GE(*range.end - range.start, 2'500'000u);
    EXPECT_LE(*range.end - range.start, 2'500'001u);
    EXPECT_EQ(range.done, 0u);
    next = *range.end;
  }
  EXPECT_EQ(next, 10'000'003u);
}

TEST(PlanRanges, NeverCutsRangesBelowTheMinimum) {
  EXPECT_EQ(plan_ranges(0, 3u << 20, 8, 1u << 20).size(), 3u);
  EXPECT_EQ(plan_ranges(0, (1u << 20) - 1, 8, 1u << 20).size(), 1u);
}

TEST(PlanRanges, StartsWhereAResumeBegins) {
  const auto plan = plan_ranges(600, 1000, 2, 1);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0], (RangeSpec{600, 800, 0}));
  EXPECT_EQ(plan[1], (RangeSpec{800, 1000, 0}));
}

TEST(PlanRanges, AnEmptyRestIsOneCompleteRange) {
  const auto plan = plan_ranges(1000, 1000, 4, 1);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_TRUE(plan[0].complete());
}

TEST(SplitRemaining, HalvesTheLargestRestUntilThereAreEnough) {
  // 0-100 complete, 100-600 with 100 done, 600-1000 untouched: 2 incomplete.
  std::vector<RangeSpec> plan{{0, 100, 100}, {100, 600, 100}, {600, 1000, 0}};
  auto split = split_remaining(plan, 4, 50);
  ASSERT_EQ(split.size(), 5u);
  EXPECT_EQ(split[0], (RangeSpec{0, 100, 100}));
  EXPECT_EQ(split[1], (RangeSpec{100, 400, 100}));  // its 400 left, halved
  EXPECT_EQ(split[2], (RangeSpec{400, 600, 0}));
  EXPECT_EQ(split[3], (RangeSpec{600, 800, 0}));  // then 400 untouched, halved
  EXPECT_EQ(split[4], (RangeSpec{800, 1000, 0}));
  std::uint64_t covered = 0;
  for (std::size_t i = 0; i + 1 < split.size(); ++i) EXPECT_EQ(*split[i].end, split[i + 1].start);
  for (const auto& range : split) covered += *range.end - range.start;
  EXPECT_EQ(covered, 1000u);
}

TEST(SplitRemaining, KeepsHalvesAboveTheMinimumAndUnknownEndsWhole) {
  std::vector<RangeSpec> small{{0, 1000, 900}};
  EXPECT_EQ(split_remaining(small, 4, 60).size(), 1u) << "100 left cannot make two halves of 60";
  EXPECT_EQ(split_remaining(small, 4, 50).size(), 2u);
  std::vector<RangeSpec> open{{0, std::nullopt, 10}};
  EXPECT_EQ(split_remaining(open, 4, 1).size(), 1u);
  std::vector<RangeSpec> enough{{0, 10, 0}, {10, 20, 0}};
  EXPECT_EQ(split_remaining(enough, 2, 1), enough);
}

TEST(RangeHeader, AsksForTheRestOfTheRange) {
  EXPECT_EQ(range_header_value(RangeSpec{100, 200, 30}), "bytes=130-199");
  EXPECT_EQ(range_header_value(RangeSpec{0, std::nullopt, 0}), "bytes=0-");
  EXPECT_EQ(range_header_value(RangeSpec{10, std::nullopt, 5}), "bytes=15-");
}

TEST(ContentRangeParse, AcceptsTheThreeForms) {
  auto full = parse_content_range("bytes 0-99/1000");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->first, 0u);
  EXPECT_EQ(full->last, 99u);
  EXPECT_EQ(full->total, 1000u);
  auto unknown = parse_content_range(" bytes 5-9/* ");
  ASSERT_TRUE(unknown);
  EXPECT_FALSE(unknown->total.has_value());
  EXPECT_EQ(unknown->last, 9u);
  auto unsatisfied = parse_content_range("bytes */1234");
  ASSERT_TRUE(unsatisfied);
  EXPECT_FALSE(unsatisfied->first.has_value());
  EXPECT_EQ(unsatisfied->total, 1234u);
}

TEST(ContentRangeParse, RejectsNonsense) {
  for (const char* bad :
       {"", "bytes", "bytes 0-99", "items 0-9/10", "bytes 9-0/10", "bytes 0-10/10", "bytes */*",
        "bytes a-b/10", "bytes 0-9/1x", "bytes -1-9/10", "bytes 0 - 9/10x"}) {
    EXPECT_FALSE(parse_content_range(bad).has_value()) << bad;
  }
}

Headers headers_of(std::initializer_list<std::pair<const char*, const char*>> fields) {
  Headers headers;
  for (const auto& [name, value] : fields) headers.add(name, value);
  return headers;
}

TEST(ResumeValidator, AStrongETagElseLastModifiedElseNone) {
  EXPECT_EQ(resume_validator(headers_of({{"ETag", "\"v1\""}, {"Last-Modified", "Tue"}})), "\"v1\"");
  EXPECT_EQ(resume_validator(headers_of({{"ETag", "W/\"v1\""}, {"Last-Modified", "Tue"}})), "Tue")
      << "a weak ETag may not go in If-Range";
  EXPECT_EQ(resume_validator(headers_of({{"ETag", ""}, {"Last-Modified", "Tue"}})), "Tue");
  EXPECT_EQ(resume_validator(headers_of({{"Content-Length", "5"}})), "");
}

TEST(SameResource, TheValidatorIfRangeNamedDecides) {
  const auto answer = headers_of({{"ETag", "\"v1\""}, {"Content-Length", "100"}});
  EXPECT_TRUE(is_same_resource(answer, "\"v1\"", 100));
  EXPECT_FALSE(is_same_resource(answer, "\"v2\"", 100)) << "an equal length is no excuse";
  const auto dated = headers_of({{"Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT"}});
  EXPECT_TRUE(is_same_resource(dated, "Tue, 01 Dec 2026 10:00:00 GMT", std::nullopt));
  EXPECT_FALSE(is_same_resource(dated, "Wed, 02 Dec 2026 10:00:00 GMT", std::nullopt));
  EXPECT_FALSE(is_same_resource(headers_of({}), "\"v1\"", 100)) << "the validator went missing";
}

TEST(SameResource, WithoutAValidatorOnlyAnEqualLengthWill) {
  const auto answer = headers_of({{"Content-Length", "100"}});
  EXPECT_TRUE(is_same_resource(answer, "", 100));
  EXPECT_FALSE(is_same_resource(answer, "", 99));
  EXPECT_FALSE(is_same_resource(answer, "", std::nullopt));
  EXPECT_FALSE(is_same_resource(headers_of({{"Content-Length", "1e2"}}), "", 100));
}

}  // namespace
}  // namespace sluice
