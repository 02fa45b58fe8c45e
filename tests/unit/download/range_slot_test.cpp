// RangeSlot: the reservation a range thread makes before each write and the cut the
// supervisor makes when another range finished early never overlap.
#include "download/range_slot.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(RangeSlot, CutTakesTheSecondHalfOfTheUnreservedRest) {
  RangeSlot slot(0, RangeSpec{1000, 2000, 0});
  EXPECT_EQ(slot.unreserved(), 1000u);
  const auto second = slot.cut_second_half(100);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(*second, (RangeSpec{1500, 2000, 0}));
  EXPECT_EQ(slot.end(), 1500u);
  EXPECT_EQ(slot.spec(), (RangeSpec{1000, 1500, 0}));
}

TEST(RangeSlot, CutNeverFallsInsideAReservedWrite) {
  RangeSlot slot(0, RangeSpec{0, 1000, 0});
  // The range's thread claimed bytes 0-799 and has not written them yet.
  EXPECT_EQ(slot.reserve(0, 800), 800u);
  EXPECT_EQ(slot.unreserved(), 200u);
  const auto second = slot.cut_second_half(50);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->start, 900u) << "the middle of the 200 unreserved bytes, not of the range";
  EXPECT_EQ(slot.end(), 900u);
}

TEST(RangeSlot, ReserveIsClippedToACutEnd) {
  RangeSlot slot(0, RangeSpec{0, 1000, 0});
  ASSERT_TRUE(slot.cut_second_half(10).has_value());  // end 500
  EXPECT_EQ(slot.reserve(0, 300), 300u);
  slot.done.store(300);
  EXPECT_EQ(slot.reserve(300, 300), 200u);
  slot.done.store(500);
  EXPECT_EQ(slot.reserve(500, 300), 0u);
  EXPECT_TRUE(slot.spec().complete());
}

TEST(RangeSlot, RestBelowTwoMinimumsIsNotCut) {
  RangeSlot slot(0, RangeSpec{0, 1000, 0});
  EXPECT_FALSE(slot.cut_second_half(501).has_value());
  EXPECT_EQ(slot.end(), 1000u);
  EXPECT_TRUE(slot.cut_second_half(500).has_value());
}

TEST(RangeSlot, ResumedSlotCountsWrittenBytesAsReserved) {
  RangeSlot slot(0, RangeSpec{0, 1000, 600});
  EXPECT_EQ(slot.unreserved(), 400u);
  const auto second = slot.cut_second_half(100);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->start, 800u);
}

TEST(RangeSlot, RangeOfUnknownEndIsNeverCut) {
  RangeSlot slot(0, RangeSpec{0, std::nullopt, 0});
  EXPECT_EQ(slot.unreserved(), 0u);
  EXPECT_FALSE(slot.cut_second_half(1).has_value());
  EXPECT_EQ(slot.reserve(0, 12345), 12345u);
  EXPECT_FALSE(slot.end().has_value());
}

TEST(RangeSlot, CompleteRangeIsNotCut) {
  RangeSlot slot(0, RangeSpec{0, 1000, 1000});
  EXPECT_EQ(slot.unreserved(), 0u);
  EXPECT_FALSE(slot.cut_second_half(1).has_value());
}

}  // namespace
}  // namespace sluice
