#pragma once
// How a download names its file: the Content-Disposition filename (RFC 6266, with
// RFC 8187 filename*) or the URL's last path segment, made safe to use as one path
// component. Pure functions: any thread. file_name_for() itself is public
// (sluice/download.hpp).

#include <optional>
#include <string>
#include <string_view>

namespace sluice {

/// The file name a Content-Disposition value offers, made safe: filename* (UTF-8
/// or ISO-8859-1, percent-decoded) preferred over filename (token or quoted-string).
/// std::nullopt when neither gives a usable name.
std::optional<std::string> content_disposition_file_name(std::string_view value);

/// A URL path's last segment, percent-decoded (unless that gives bytes that are not
/// UTF-8: then as it is) and made safe; std::nullopt when it gives no usable name
/// ("/" or "/dir/").
std::optional<std::string> url_path_file_name(std::string_view path);

/// `name` reduced to its last component after '/' or '\', or std::nullopt when that
/// is empty, ".", "..", starts with a dot or holds a control character (bytes below
/// 0x20 and 0x7f).
std::optional<std::string> safe_file_name(std::string_view name);

/// %XX sequences decoded; std::nullopt when one is malformed.
std::optional<std::string> percent_decode(std::string_view text);

}  // namespace sluice
