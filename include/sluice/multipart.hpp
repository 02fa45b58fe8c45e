#pragma once
/// @file
/// MultipartForm: a multipart/form-data body (RFC 7578), as an HTML form and curl's
/// -F send it. Fields are bytes; file parts stay on disk and are read on the file
/// pool while the request is sent, so a form with a large file costs one read
/// piece of memory, not the file. A missing file fails the request at send time
/// with category io, naming the file.
/// Ownership: a plain value; build it on one thread, then move its body into a
/// Request.

#include <string>
#include <vector>

#include "sluice/export.h"
#include "sluice/request.hpp"

namespace sluice {

class SLUICE_API MultipartForm {
 public:
  /// With a random boundary (32 hex digits from the system's random source).
  MultipartForm();
  /// With this boundary (tests, reproducible output); it must not occur in any
  /// part, which the caller guarantees.
  explicit MultipartForm(std::string boundary);

  /// A text field: name=value. `content_type` empty: none (text/plain by RFC 7578).
  void add_field(const std::string& name, const std::string& value,
                 const std::string& content_type = {});
  /// A file upload. `filename` empty: the path's last component; `content_type`
  /// empty: guessed from the file name's extension (application/octet-stream
  /// when unknown).
  void add_file(const std::string& name, const std::string& path, const std::string& filename = {},
                const std::string& content_type = {});

  const std::string& boundary() const noexcept { return boundary_; }
  /// The request's Content-Type: multipart/form-data; boundary=...
  std::string content_type() const;
  /// The body: every part's head and content, then the closing boundary.
  PartsBody body() const;
  /// Sets request.body and its Content-Type header (unless one is set already).
  void apply_to(Request& request) const;

 private:
  std::string boundary_;
  std::vector<std::variant<BytesBody, FileBody>> parts_;  // heads and contents, in order
};

/// The media type a file name suggests ("photo.png" -> "image/png"), or
/// "application/octet-stream".
SLUICE_API std::string media_type_for_file_name(std::string_view file_name);

}  // namespace sluice
