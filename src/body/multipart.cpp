#include "sluice/multipart.hpp"

#include <array>
#include <cstdio>
#include <random>

#include "sluice/headers.hpp"

namespace sluice {
namespace {

struct Extension {
  std::string_view suffix;
  std::string_view type;
};

// The types a person uploads most; anything else is application/octet-stream.
constexpr std::array<Extension, 22> kExtensions = {{
    {".txt", "text/plain"},        {".html", "text/html"},      {".htm", "text/html"},
    {".css", "text/css"},          {".csv", "text/csv"},        {".js", "text/javascript"},
    {".json", "application/json"}, {".xml", "application/xml"}, {".pdf", "application/pdf"},
    {".zip", "application/zip"},   {".gz", "application/gzip"}, {".tar", "application/x-tar"},
    {".png", "image/png"},         {".jpg", "image/jpeg"},      {".jpeg", "image/jpeg"},
    {".gif", "image/gif"},         {".svg", "image/svg+xml"},   {".webp", "image/webp"},
    {".mp3", "audio/mpeg"},        {".mp4", "video/mp4"},       {".wasm", "application/wasm"},
    {".md", "text/markdown"},
}};

bool ends_with_ignoring_case(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && iequals(text.substr(text.size() - suffix.size()), suffix);
}

// A name or filename inside the quoted Content-Disposition parameters, escaped as
// the HTML standard has browsers do it: '"' and line breaks would end the value or
// the header.
std::string quoted_parameter(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    switch (c) {
      case '"': out += "%22"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

// A Content-Type from the caller cannot be allowed to break the part's head.
std::string one_line(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c != '\r' && c != '\n') out += c;
  }
  return out;
}

std::string random_boundary() {
  std::random_device random;
  std::string boundary = "----sluice-form-";
  for (int i = 0; i < 4; ++i) {
    char word[9];
    std::snprintf(word, sizeof word, "%08x", static_cast<unsigned>(random()));
    boundary += word;
  }
  return boundary;
}

std::string last_component(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

MultipartForm::MultipartForm() : boundary_(random_boundary()) {}

MultipartForm::MultipartForm(std::string boundary) : boundary_(std::move(boundary)) {}

void MultipartForm::add_field(const std::string& name, const std::string& value,
                              const std::string& content_type) {
  std::string head = "--" + boundary_ +
                     "\r\nContent-Disposition: form-data; name=" + quoted_parameter(name) + "\r\n";
  if (!content_type.empty()) head += "Content-Type: " + one_line(content_type) + "\r\n";
  parts_.emplace_back(BytesBody{head + "\r\n" + value + "\r\n"});
}

void MultipartForm::add_file(const std::string& name, const std::string& path,
                             const std::string& filename, const std::string& content_type) {
  const std::string shown = filename.empty() ? last_component(path) : filename;
  const std::string type = content_type.empty() ? media_type_for_file_name(shown) : content_type;
  parts_.emplace_back(BytesBody{"--" + boundary_ + "\r\nContent-Disposition: form-data; name=" +
                                quoted_parameter(name) + "; filename=" + quoted_parameter(shown) +
                                "\r\nContent-Type: " + one_line(type) + "\r\n\r\n"});
  parts_.emplace_back(FileBody{path});
  parts_.emplace_back(BytesBody{"\r\n"});
}

std::string MultipartForm::content_type() const {
  return "multipart/form-data; boundary=" + boundary_;
}

PartsBody MultipartForm::body() const {
  PartsBody body{parts_};
  body.parts.emplace_back(BytesBody{"--" + boundary_ + "--\r\n"});
  return body;
}

void MultipartForm::apply_to(Request& request) const {
  request.body = body();
  if (!request.headers.contains("content-type"))
    request.headers.set("Content-Type", content_type());
}

std::string media_type_for_file_name(std::string_view file_name) {
  for (const Extension& extension : kExtensions) {
    if (ends_with_ignoring_case(file_name, extension.suffix)) return std::string(extension.type);
  }
  return "application/octet-stream";
}

}  // namespace sluice
