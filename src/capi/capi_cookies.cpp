// The C API of the cookie engine: sluice_cookie_jar over sluice::CookieJar, and the
// client option that hands it to clients (ClientOptions::cookie_jar).
// Ownership: the handle belongs to one C thread at a time (its header buffer is not
// guarded); the CookieJar inside is shared with the clients (thread-safe, its own mutex).
#include <memory>
#include <string>
#include <string_view>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"
#include "sluice/cookies.hpp"

struct sluice_cookie_jar : sluice::capi::Tagged<sluice::capi::Tag::cookie_jar> {
  std::shared_ptr<sluice::CookieJar> jar = std::make_shared<sluice::CookieJar>();
  std::string header;  ///< what sluice_cookie_jar_header lent, until the next call
};

using namespace sluice;
using namespace sluice::capi;

extern "C" {

sluice_code sluice_cookie_jar_new(sluice_cookie_jar** out) {
  if (out == nullptr) return invalid("sluice_cookie_jar_new", "out is NULL");
  return capi_call("sluice_cookie_jar_new", [&] {
    *out = new sluice_cookie_jar();
    return ok();
  });
}

void sluice_cookie_jar_free(sluice_cookie_jar* jar) {
  if (usable(jar)) delete jar;
}

sluice_code sluice_cookie_jar_load(sluice_cookie_jar* jar, const char* path, size_t path_len,
                                   int drop_session) {
  if (!usable(jar)) return invalid("sluice_cookie_jar_load", "jar is NULL or not a live jar");
  std::string_view text;
  if (!text_argument(path, path_len, text) || text.empty()) {
    return invalid("sluice_cookie_jar_load", "path is NULL, empty or holds a NUL byte");
  }
  return capi_call("sluice_cookie_jar_load", [&] {
    auto loaded = jar->jar->load_file(std::string(text), drop_session != 0);
    return loaded ? ok() : fail(loaded.error());
  });
}

sluice_code sluice_cookie_jar_save(sluice_cookie_jar* jar, const char* path, size_t path_len) {
  if (!usable(jar)) return invalid("sluice_cookie_jar_save", "jar is NULL or not a live jar");
  std::string_view text;
  if (!text_argument(path, path_len, text) || text.empty()) {
    return invalid("sluice_cookie_jar_save", "path is NULL, empty or holds a NUL byte");
  }
  return capi_call("sluice_cookie_jar_save", [&] {
    auto saved = jar->jar->save_file(std::string(text));
    return saved ? ok() : fail(saved.error());
  });
}

sluice_code sluice_cookie_jar_header(sluice_cookie_jar* jar, const char* url, size_t url_len,
                                     const char** out, size_t* out_len) {
  if (!usable(jar)) return invalid("sluice_cookie_jar_header", "jar is NULL or not a live jar");
  if (out == nullptr || out_len == nullptr) {
    return invalid("sluice_cookie_jar_header", "out or out_len is NULL");
  }
  std::string_view text;
  if (!text_argument(url, url_len, text)) {
    return invalid("sluice_cookie_jar_header", "url is NULL or holds a NUL byte");
  }
  return capi_call("sluice_cookie_jar_header", [&] {
    auto parsed = Url::parse(text);
    if (!parsed) return fail(parsed.error());
    jar->header = jar->jar->cookie_header(*parsed);
    *out = jar->header.c_str();
    *out_len = jar->header.size();
    return ok();
  });
}

size_t sluice_cookie_jar_count(const sluice_cookie_jar* jar) {
  return usable(jar) ? jar->jar->size() : 0;
}

sluice_code sluice_client_options_set_cookie_jar(sluice_client_options* options,
                                                 sluice_cookie_jar* jar) {
  if (jar != nullptr && !usable(jar)) {
    return invalid("sluice_client_options_set_cookie_jar", "jar is not a live jar");
  }
  return with_options("sluice_client_options_set_cookie_jar", options, [&](ClientOptions& o) {
    o.cookie_jar = jar != nullptr ? jar->jar : nullptr;
    return ok();
  });
}

}  // extern "C"
