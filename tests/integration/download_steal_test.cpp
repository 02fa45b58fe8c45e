// Work stealing in sluice::download(): a range that finishes while another still has
// a large rest takes the second half of it on a new connection. The scripted server
// holds the slow range's request until the thief's request has arrived (an event, not
// a delay), so the steal is certain and its cut point exact.
#include <gtest/gtest.h>

#include <algorithm>

#include "download/file/download_control.hpp"
#include "integration/download_test_server.hpp"
#include "sluice/download.hpp"
#include "support/make_client.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::file_exists;
using test::sha256_of_file;

constexpr std::uint64_t k8m = 8u << 20;
constexpr std::uint64_t kHalf = k8m / 2;  // two ranges: the second starts here

std::string range_value(std::uint64_t first, std::uint64_t end) {
  return "bytes=" + std::to_string(first) + "-" + std::to_string(end - 1);
}

class DownloadSteal : public ::testing::Test {
 protected:
  DownloadSteal() {
    // The second range's first request waits until a third request has arrived: the
    // one the first range makes for the half it takes once its own bytes are in.
    server_.set_hold(
        [](int, std::uint64_t start) -> std::size_t { return start == kHalf ? 3 : 0; });
  }
  DownloadOptions options_for(const std::string& path) const {
    DownloadOptions options;
    options.request = Request::get(server_.url());
    options.target.path = path;
    options.ranges = 2;
    options.retry.delay = 10ms;
    return options;
  }
  bool asked_for(const std::string& range) const {
    const auto seen = server_.seen();
    return std::any_of(seen.begin(), seen.end(),
                       [&](const test::RangeRequestSeen& one) { return one.range == range; });
  }

  Client client_ = test::make_client();
  const std::string body_ = test::pseudo_random_bytes(k8m, 11);
  test::RangeFileServer server_{body_};
  test::ScratchDir dir_;
};

TEST_F(DownloadSteal, RangeThatFinishesEarlyTakesTheSecondHalfOfTheSlowRest) {
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  options.sha256 = test::sha256_hex(body_);
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_GE(result->steals, 1u);
  EXPECT_TRUE(asked_for(range_value(kHalf + kHalf / 2, k8m)))
      << "the thief asks for the second half of the held range's rest";
  bool noted = false;
  for (const auto& note : result->notes) noted |= note.find("finished early") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
  EXPECT_FALSE(file_exists(control_file_path(path)));
}

// The held range's answer still names the end it asked for (the old one): it is
// accepted, and only the bytes up to the new end are written.
TEST_F(DownloadSteal, VictimAcceptsTheAnswerToTheEndItAskedFor) {
  const std::string path = dir_.file("f");
  auto result = download(client_, options_for(path));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_TRUE(asked_for(range_value(kHalf, k8m)));
  EXPECT_EQ(test::read_file(path), body_);
}

// A run that fails after a steal leaves a control file with the stolen range in file
// order; resuming finishes every range.
TEST_F(DownloadSteal, ControlFileAfterAStealListsTheWorkLeftInFileOrderAndResumes) {
  // Request 1 is the held range's: once released, it is cut 1000 bytes into its body.
  server_.set_cut([](int index, std::uint64_t) { return index == 1 ? 1000LL : -1LL; });
  // The thief's request waits too (for a fourth request, which only the resumed run
  // makes): a thief done before the cut range failed would steal again from its rest.
  server_.set_hold([](int, std::uint64_t start) -> std::size_t {
    return start == kHalf ? 3 : start == kHalf + kHalf / 2 ? 4 : 0;
  });
  const std::string path = dir_.file("f");
  auto failed = download(client_, options_for(path));
  ASSERT_FALSE(failed.ok());
  auto control = load_control(control_file_path(path));
  ASSERT_TRUE(control.ok()) << control.error().message();
  ASSERT_TRUE(control->has_value()) << "a failed run keeps its control file";
  const auto& ranges = (*control)->ranges;
  // The first range, complete, folds into the cut one after it: 1000 bytes past kHalf
  // are done from 0. The stolen half follows it, in file order.
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0], (RangeSpec{0, kHalf + kHalf / 2, kHalf + 1000}));
  EXPECT_EQ(ranges[1].start, kHalf + kHalf / 2);
  EXPECT_EQ(ranges[1].end, k8m);

  server_.set_cut({});
  server_.set_hold({});
  auto options = options_for(path);
  options.resume = true;
  options.sha256 = test::sha256_hex(body_);
  auto resumed = download(client_, options);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message();
  EXPECT_TRUE(asked_for(range_value(kHalf + 1000, kHalf + kHalf / 2)));
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
  EXPECT_FALSE(file_exists(control_file_path(path)));
}

}  // namespace
}  // namespace sluice
