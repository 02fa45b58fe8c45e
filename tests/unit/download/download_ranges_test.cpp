#include "download/download_ranges.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

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

}  // namespace
}  // namespace sluice
