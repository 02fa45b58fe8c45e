// Fuzz target: the Content-Disposition parser (content_disposition_file_name, RFC 6266
// with RFC 8187 filename*) and file_name_for, which picks a download's file name from
// it or from the URL's last path segment (src/download/file/file_names).
// Input: the first line is a URL path (parsed as "http://x/<line>"; "/" when that
// fails), the rest is the Content-Disposition value.
// Invariant checked, the one that matters: a name chosen from server bytes is one
// safe path component: not empty, no '/' or '\', not starting with '.', no control
// byte, so a server can never make a download write outside its directory.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "download/file/file_names.hpp"
#include "fuzz_input.hpp"
#include "sluice/download.hpp"
#include "sluice/headers.hpp"
#include "sluice/url.hpp"

namespace {

using sluice::fuzz::check;

bool is_safe_component(std::string_view name) {
  if (name.empty() || name.front() == '.') return false;
  for (char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\' || byte < 0x20 || byte == 0x7f) return false;
  }
  return true;
}

sluice::Url url_for(std::string_view path) {
  auto url = sluice::Url::parse("http://x/" + std::string(path));
  if (url) return *url;
  return *sluice::Url::parse("http://x/");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const sluice::Url url = url_for(input.line());
  const std::string_view value = input.rest();

  if (auto name = sluice::content_disposition_file_name(value)) {
    check(is_safe_component(*name), "a Content-Disposition name is one safe path component");
  }
  if (auto name = sluice::url_path_file_name(url.path)) {
    check(is_safe_component(*name), "a URL path name is one safe path component");
  }
  sluice::Headers headers;
  headers.add("Content-Disposition", std::string(value));
  for (bool use_header : {false, true}) {
    const std::string name = sluice::file_name_for(url, headers, use_header);
    check(is_safe_component(name), "file_name_for returns one safe path component");
  }
  return 0;
}
