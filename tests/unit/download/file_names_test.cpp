#include "download/file/file_names.hpp"

#include <gtest/gtest.h>

#include "sluice/download.hpp"

namespace sluice {
namespace {

Url url_of(std::string_view text) {
  auto url = Url::parse(text);
  EXPECT_TRUE(url.ok()) << text;
  return url.ok() ? *url : Url{};
}

std::string name_for(std::string_view url, std::string_view disposition, bool use = true) {
  Headers headers;
  if (!disposition.empty()) headers.add("Content-Disposition", std::string(disposition));
  return file_name_for(url_of(url), headers, use);
}

TEST(FileNameFor, TakesTheUrlPathsLastSegment) {
  EXPECT_EQ(name_for("http://h/a/b/file.tar.gz?x=1#frag", ""), "file.tar.gz");
}

TEST(FileNameFor, PercentDecodesTheUrlSegment) {
  EXPECT_EQ(name_for("http://h/dir/my%20file%C3%A9.txt", ""), "my file\xC3\xA9.txt");
}

TEST(FileNameFor, FallsBackToIndexHtml) {
  EXPECT_EQ(name_for("http://h/", ""), "index.html");
  EXPECT_EQ(name_for("http://h/dir/", ""), "index.html");
  EXPECT_EQ(name_for("http://h", ""), "index.html");
}

TEST(FileNameFor, UrlSegmentThatDecodesToAPathKeepsOnlyItsLastComponent) {
  EXPECT_EQ(name_for("http://h/x/..%2F..%2Fetc%2Fpasswd", ""), "passwd");
  EXPECT_EQ(name_for("http://h/x/a%5Cb.txt", ""), "b.txt");
}

TEST(FileNameFor, RejectsDotNamesAndControlCharactersFromTheUrl) {
  EXPECT_EQ(name_for("http://h/x/.hidden", ""), "index.html");
  EXPECT_EQ(name_for("http://h/x/%2E%2E", ""), "index.html");
  EXPECT_EQ(name_for("http://h/x/a%00b", ""), "index.html");
  EXPECT_EQ(name_for("http://h/x/a%0Ab", ""), "index.html");
  EXPECT_EQ(name_for("http://h/x/a%7Fb", ""), "index.html");
  EXPECT_EQ(name_for("http://h/x/..%2F", ""), "index.html");
}

TEST(FileNameFor, IgnoresContentDispositionUnlessAsked) {
  EXPECT_EQ(name_for("http://h/get", "attachment; filename=real.zip", false), "get");
  EXPECT_EQ(name_for("http://h/get", "attachment; filename=real.zip", true), "real.zip");
}

TEST(ContentDisposition, TokenAndQuotedString) {
  EXPECT_EQ(content_disposition_file_name("attachment; filename=plain.txt"), "plain.txt");
  EXPECT_EQ(content_disposition_file_name("attachment; filename=\"with space.txt\""),
            "with space.txt");
  EXPECT_EQ(content_disposition_file_name("attachment;filename=\"esc\\\"aped.txt\""),
            "esc\"aped.txt");
  EXPECT_EQ(content_disposition_file_name("inline; FileName = \"case.txt\" ; size=3"), "case.txt");
}

TEST(ContentDisposition, ExtendedFilenameIsPreferredAndDecoded) {
  EXPECT_EQ(content_disposition_file_name(
                "attachment; filename=\"fallback.txt\"; filename*=UTF-8''na%C3%AFve%20file.txt"),
            "na\xC3\xAFve file.txt");
  EXPECT_EQ(content_disposition_file_name("attachment; filename*=utf-8'en'x.bin; filename=y.bin"),
            "x.bin");
  EXPECT_EQ(content_disposition_file_name("attachment; filename*=iso-8859-1''caf%E9.txt"),
            "caf\xC3\xA9.txt");
}

TEST(ContentDisposition, UnusableExtendedFilenameFallsBackToFilename) {
  EXPECT_EQ(
      content_disposition_file_name("attachment; filename*=KOI8-R''x.txt; filename=\"ok.txt\""),
      "ok.txt");
  EXPECT_EQ(
      content_disposition_file_name("attachment; filename*=UTF-8''bad%zz; filename=\"ok.txt\""),
      "ok.txt");
  EXPECT_EQ(content_disposition_file_name("attachment; filename*=UTF-8''..; filename=\"ok.txt\""),
            "ok.txt");
}

TEST(ContentDisposition, PathComponentsAreStripped) {
  EXPECT_EQ(content_disposition_file_name("attachment; filename=\"../../etc/passwd\""), "passwd");
  EXPECT_EQ(content_disposition_file_name("attachment; filename=\"C:\\\\Windows\\\\evil.exe\""),
            "evil.exe");
  EXPECT_EQ(content_disposition_file_name("attachment; filename*=UTF-8''%2Ftmp%2Fx.sh"), "x.sh");
}

TEST(ContentDisposition, UnsafeNamesAreRejected) {
  EXPECT_EQ(content_disposition_file_name("attachment; filename=\"\""), std::nullopt);
  EXPECT_EQ(content_disposition_file_name("attachment; filename=."), std::nullopt);
  EXPECT_EQ(content_disposition_file_name("attachment; filename=\"..\""), std::nullopt);
  EXPECT_EQ(content_disposition_file_name("attachment; filename=\".bashrc\""), std::nullopt);
  EXPECT_EQ(content_disposition_file_name("attachment; filename=\"dir/\""), std::nullopt);
  EXPECT_EQ(content_disposition_file_name("attachment; filename*=UTF-8''a%0Db.txt"), std::nullopt);
  EXPECT_EQ(content_disposition_file_name("attachment; filename=\"tab\there\""), std::nullopt);
  EXPECT_EQ(content_disposition_file_name("attachment"), std::nullopt);
  EXPECT_EQ(content_disposition_file_name(""), std::nullopt);
}

TEST(FileNameFor, UnsafeDispositionFallsBackToTheUrl) {
  EXPECT_EQ(name_for("http://h/files/report.pdf", "attachment; filename=\"..\""), "report.pdf");
  EXPECT_EQ(name_for("http://h/", "attachment; filename=\".env\""), "index.html");
}

TEST(ContentDisposition, UnterminatedQuoteTakesTheRest) {
  EXPECT_EQ(content_disposition_file_name("attachment; filename=\"cut.txt"), "cut.txt");
}

TEST(PercentDecode, RejectsMalformedEscapes) {
  EXPECT_EQ(percent_decode("a%2"), std::nullopt);
  EXPECT_EQ(percent_decode("a%"), std::nullopt);
  EXPECT_EQ(percent_decode("%g0"), std::nullopt);
  EXPECT_EQ(percent_decode("%41%62c"), "Abc");
}

TEST(FileNameFor, StrayPercentInTheUrlIsKeptAsACharacter) {
  EXPECT_EQ(url_path_file_name("/x/50%"), "50%");
  EXPECT_EQ(url_path_file_name("/x/100%25"), "100%");
}

TEST(FileNameFor, EscapesThatAreNotUtf8StayEscaped) {
  EXPECT_EQ(url_path_file_name("/x/a%FFb.bin"), "a%FFb.bin");
  EXPECT_EQ(url_path_file_name("/x/%C0%80.txt"), "%C0%80.txt");          // an overlong NUL
  EXPECT_EQ(url_path_file_name("/x/caf%C3%A9.txt"), "caf\xC3\xA9.txt");  // UTF-8: decoded
}

}  // namespace
}  // namespace sluice
