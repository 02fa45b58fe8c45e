// The C API: multipart/form-data request bodies (sluice::MultipartForm).
#include <string>
#include <string_view>
#include <variant>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

namespace {

// Adds one part with `add`, starting a new form when the body is not the current
// one (the first part, or a set_body_* call replaced it), then makes the body and
// Content-Type the form's.
template <class Add>
sluice_code with_form(const char* function, sluice_request* request, Add&& add) {
  if (!usable(request)) return invalid(function, "request is NULL or not a live request");
  return capi_call(function, [&] {
    Request& r = request->request;
    std::string previous_type;
    if (!request->form || !std::holds_alternative<PartsBody>(r.body)) {
      if (request->form) previous_type = request->form->content_type();
      request->form.emplace();
    }
    add(*request->form);
    r.body = request->form->body();
    const auto type = r.headers.get("content-type");
    if (!type || (!previous_type.empty() && *type == previous_type)) {
      r.headers.set("Content-Type", request->form->content_type());
    }
    return ok();
  });
}

}  // namespace

extern "C" {

sluice_code sluice_request_add_form_field(sluice_request* request, const char* name,
                                          size_t name_len, const char* value, size_t value_len) {
  std::string_view name_text, value_text;
  if (!text_argument(name, name_len, name_text) || name_text.empty() ||
      !text_argument(value, value_len, value_text)) {
    return invalid("sluice_request_add_form_field",
                   "name is NULL, empty or holds a NUL byte, or value is NULL or holds one");
  }
  return with_form("sluice_request_add_form_field", request, [&](MultipartForm& form) {
    form.add_field(std::string(name_text), std::string(value_text));
  });
}

sluice_code sluice_request_add_form_file(sluice_request* request, const char* name, size_t name_len,
                                         const char* path, size_t path_len, const char* filename,
                                         size_t filename_len, const char* content_type,
                                         size_t content_type_len) {
  std::string_view name_text, path_text, filename_text, type_text;
  if (!text_argument(name, name_len, name_text) || name_text.empty() ||
      !text_argument(path, path_len, path_text) || path_text.empty() ||
      !text_argument(filename, filename_len, filename_text) ||
      !text_argument(content_type, content_type_len, type_text)) {
    return invalid("sluice_request_add_form_file",
                   "name or path is NULL, empty or holds a NUL byte, or filename or "
                   "content_type holds a NUL byte");
  }
  return with_form("sluice_request_add_form_file", request, [&](MultipartForm& form) {
    form.add_file(std::string(name_text), std::string(path_text), std::string(filename_text),
                  std::string(type_text));
  });
}

}  // extern "C"
