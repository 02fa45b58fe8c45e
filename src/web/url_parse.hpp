#pragma once
// The pieces of URL parsing that Url::parse and Url::resolve share: RFC 3986
// component splitting, percent-encoding of characters a component may not hold,
// and dot-segment removal.
//
// Ownership: free functions over caller-owned views; pure, any thread.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/error.hpp"
#include "sluice/url.hpp"

namespace sluice::url_detail {

/// Which component a string is encoded for; each allows a different character set.
enum class Component { path, query, fragment };

/// An Error of category usage: "URL: <problem> in '<input>'" plus " (<hint>)".
/// The input is quoted with control and non-ASCII bytes escaped and long inputs cut.
Error url_error(std::string_view problem, std::string_view input, std::string_view hint = {});

/// Strips leading and trailing spaces, as browsers do with pasted URLs.
std::string_view trim_spaces(std::string_view text) noexcept;

/// Refuses CR, LF, NUL and TAB anywhere: they would let a URL smuggle bytes into a
/// request line or header.
Result<void> refuse_smuggling_bytes(std::string_view input);

/// Where the scheme's ':' is, when one comes before any '/', '?' or '#'.
std::optional<std::size_t> find_scheme_colon(std::string_view text) noexcept;
/// RFC 3986 scheme syntax: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
bool is_scheme_syntax(std::string_view scheme) noexcept;
/// ASCII lowercase copy.
std::string to_lower(std::string_view text);
/// 80 for http, 443 for https, 0 otherwise.
std::uint16_t default_port(std::string_view scheme) noexcept;

/// Parses what follows "scheme:" ("//authority/path?query#fragment") into a Url.
/// `scheme` is lowercase and supported; `input` is quoted by error messages.
Result<Url> parse_hierarchical(std::string scheme, std::string_view rest, std::string_view input);

/// The path, query and fragment of a reference or URL, split but not normalized.
struct RawTail {
  std::string_view path;
  std::string_view query;
  std::string_view fragment;
  bool has_query = false;
  bool has_fragment = false;
};
RawTail split_tail(std::string_view text) noexcept;

/// Percent-encodes every byte `component` may not hold; keeps valid %XX triplets
/// and encodes a '%' that does not start one as %25. Never fails: the bytes that
/// must be refused are refused earlier by refuse_smuggling_bytes.
std::string encode_component(std::string_view raw, Component component);

/// RFC 3986 section 5.2.4 for a path that starts with '/'.
std::string remove_dot_segments(std::string_view path);

}  // namespace sluice::url_detail
