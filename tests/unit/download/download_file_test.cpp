// OutputFile: the positional writes a download's range threads make, and the errors
// a person reads when the disk refuses them.
#include "download/file/download_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <thread>

namespace sluice {
namespace {

std::string temp_path(const char* name) {
  return ::testing::TempDir() + "/sluice-output-" + std::to_string(::getpid()) + "-" + name;
}

std::span<const std::byte> bytes_of(std::string_view text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(OutputFile, WritesEachPieceAtItsOffsetWhateverTheOrder) {
  const std::string path = temp_path("order");
  auto file = OutputFile::open(path);
  ASSERT_TRUE(file.ok()) << file.error().message();
  ASSERT_TRUE(file->resize(12).ok());
  // Ranges of a segmented download land in any order.
  ASSERT_TRUE(file->write_at(bytes_of("world!"), 6).ok());
  ASSERT_TRUE(file->write_at(bytes_of("hello "), 0).ok());
  EXPECT_EQ(contents(path), "hello world!");
  std::remove(path.c_str());
}

TEST(OutputFile, AFullDiskIsAnIoErrorThatNamesTheFileTheOffsetAndTheReason) {
  // /dev/full takes the open and refuses every write with ENOSPC, as a full disk does.
  auto file = OutputFile::open("/dev/full");
  ASSERT_TRUE(file.ok()) << file.error().message();
  auto written = file->write_at(bytes_of("0123456789"), 4096);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().category(), ErrorCategory::io);
  EXPECT_EQ(written.error().message(),
            "download: cannot write 10 bytes at offset 4096 of '/dev/full': "
            "No space left on device");
}

TEST(OutputFile, AnOriginShiftsOffsetsAndSizesByTheRangesFirstByte) {
  const std::string path = temp_path("origin");
  auto file = OutputFile::open(path);
  ASSERT_TRUE(file.ok()) << file.error().message();
  file->set_origin(1000);
  ASSERT_TRUE(file->resize(1012).ok());
  ASSERT_TRUE(file->write_at(bytes_of("world!"), 1006).ok());
  ASSERT_TRUE(file->write_at(bytes_of("hello "), 1000).ok());
  EXPECT_EQ(contents(path), "hello world!");
  EXPECT_EQ(file->size().value(), 1012u);
  std::remove(path.c_str());
}

// A FIFO has no offsets: a stream output takes the bytes in the order written.
TEST(OutputFile, AStreamTakesBytesInOrderAndIsNeverSized) {
  const std::string path = temp_path("fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_TRUE(is_stream_output(path));
  EXPECT_TRUE(is_stream_output("/dev/null"));
  EXPECT_FALSE(is_stream_output(temp_path("absent")));
  std::FILE* reader = nullptr;
  std::thread opener([&] { reader = std::fopen(path.c_str(), "rb"); });
  {
    auto file = OutputFile::open_stream(path);  // waits for the reader's open
    opener.join();
    ASSERT_TRUE(file.ok()) << file.error().message();
    EXPECT_TRUE(file->is_stream());
    EXPECT_TRUE(file->resize(100).ok());
    ASSERT_TRUE(file->write_at(bytes_of("in "), 500).ok());
    ASSERT_TRUE(file->write_at(bytes_of("order"), 0).ok());
  }  // closed: the reader sees the end
  ASSERT_NE(reader, nullptr);
  char got[16] = {};
  EXPECT_EQ(std::fread(got, 1, sizeof got, reader), 8u);
  EXPECT_EQ(std::string(got, 8), "in order");
  std::fclose(reader);
  std::remove(path.c_str());
}

TEST(OutputFile, AnEmptyWriteTouchesNothing) {
  const std::string path = temp_path("empty");
  auto file = OutputFile::open(path);
  ASSERT_TRUE(file.ok()) << file.error().message();
  EXPECT_TRUE(file->write_at({}, 100).ok());
  auto size = file->size();
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 0u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace sluice
