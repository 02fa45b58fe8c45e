// MultipartForm: the exact bytes of a form (RFC 7578), names escaped as browsers do,
// media types from file names, and random boundaries that differ.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "sluice/multipart.hpp"

namespace sluice {
namespace {

// The body with each file part replaced by "<file PATH>".
std::string flatten(const PartsBody& body) {
  std::string out;
  for (const auto& part : body.parts) {
    if (const auto* bytes = std::get_if<BytesBody>(&part)) {
      out += bytes->bytes;
    } else {
      out += "<file " + std::get<FileBody>(part).path + ">";
    }
  }
  return out;
}

TEST(MultipartForm, FieldsAndFilesInOrderWithTheClosingBoundary) {
  MultipartForm form("XyZ");
  form.add_field("name", "value");
  form.add_field("typed", "{}", "application/json");
  form.add_file("upload", "/tmp/dir/photo.PNG");
  form.add_file("doc", "/tmp/a.bin", "report.txt", "text/x-custom");
  EXPECT_EQ(form.content_type(), "multipart/form-data; boundary=XyZ");
  EXPECT_EQ(flatten(form.body()),
            "--XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nvalue\r\n"
            "--XyZ\r\nContent-Disposition: form-data; name=\"typed\"\r\n"
            "Content-Type: application/json\r\n\r\n{}\r\n"
            "--XyZ\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"photo.PNG\"\r\n"
            "Content-Type: image/png\r\n\r\n<file /tmp/dir/photo.PNG>\r\n"
            "--XyZ\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"report.txt\"\r\n"
            "Content-Type: text/x-custom\r\n\r\n<file /tmp/a.bin>\r\n"
            "--XyZ--\r\n");
}

TEST(MultipartForm, QuotesAndLineBreaksInNamesAreEscaped) {
  MultipartForm form("b");
  form.add_file("a\"b\r\nc", "/x/we\"ird", "", "text/plain\r\nX-Injected: 1");
  EXPECT_EQ(
      flatten(form.body()),
      "--b\r\nContent-Disposition: form-data; name=\"a%22b%0D%0Ac\"; filename=\"we%22ird\"\r\n"
      "Content-Type: text/plainX-Injected: 1\r\n\r\n<file /x/we\"ird>\r\n--b--\r\n");
}

TEST(MultipartForm, AnEmptyFormIsTheClosingBoundaryAlone) {
  MultipartForm form("e");
  EXPECT_EQ(flatten(form.body()), "--e--\r\n");
}

TEST(MultipartForm, RandomBoundariesDifferAndApplyToSetsTheHeaderOnce) {
  MultipartForm first;
  MultipartForm second;
  EXPECT_NE(first.boundary(), second.boundary());
  EXPECT_GE(first.boundary().size(), 40u);
  Request request;
  first.apply_to(request);
  EXPECT_EQ(request.headers.get("Content-Type"), first.content_type());
  EXPECT_TRUE(std::holds_alternative<PartsBody>(request.body));
  Request preset;
  preset.headers.set("Content-Type", "multipart/mixed; boundary=mine");
  first.apply_to(preset);
  EXPECT_EQ(preset.headers.get("Content-Type"), "multipart/mixed; boundary=mine");
}

TEST(MultipartForm, MediaTypesFromFileNames) {
  EXPECT_EQ(media_type_for_file_name("a.json"), "application/json");
  EXPECT_EQ(media_type_for_file_name("A.JPEG"), "image/jpeg");
  EXPECT_EQ(media_type_for_file_name("archive.tar.gz"), "application/gzip");
  EXPECT_EQ(media_type_for_file_name("noext"), "application/octet-stream");
  EXPECT_EQ(media_type_for_file_name(".png"), "image/png");
  EXPECT_EQ(media_type_for_file_name(""), "application/octet-stream");
}

}  // namespace
}  // namespace sluice
