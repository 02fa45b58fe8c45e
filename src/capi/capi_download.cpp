// The C API: sluice::download() and its options and result.
#include <string>
#include <string_view>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

namespace {

template <class Set>
sluice_code with_download(const char* function, sluice_download_options* options, Set&& set) {
  if (!usable(options)) return invalid(function, "options is NULL or not live download options");
  return capi_call(function, [&] { return set(options->options); });
}

// Sets a text option: refuses NULL with a length and NUL bytes.
template <class Set>
sluice_code set_text(const char* function, sluice_download_options* options, const char* text,
                     std::size_t len, Set&& set) {
  std::string_view value;
  if (!text_argument(text, len, value))
    return invalid(function, "text is NULL or holds a NUL byte");
  return with_download(function, options, [&](DownloadOptions& o) {
    set(o, std::string(value));
    return ok();
  });
}

}  // namespace

extern "C" {

sluice_code sluice_download_options_new(const sluice_request* request,
                                        sluice_download_options** out) {
  if (out == nullptr) return invalid("sluice_download_options_new", "out is NULL");
  *out = nullptr;
  if (!usable(request)) {
    return invalid("sluice_download_options_new", "request is NULL or not a live request");
  }
  return capi_call("sluice_download_options_new", [&] {
    auto handle = std::make_unique<sluice_download_options>();
    handle->options.request = request->request;
    handle->options.cancel = &handle->cancel;
    *out = handle.release();
    return ok();
  });
}

void sluice_download_options_free(sluice_download_options* options) {
  if (usable(options)) delete options;
}

sluice_code sluice_download_options_set_path(sluice_download_options* options, const char* path,
                                             size_t len) {
  return set_text("sluice_download_options_set_path", options, path, len,
                  [](DownloadOptions& o, std::string v) { o.target.path = std::move(v); });
}

sluice_code sluice_download_options_set_directory(sluice_download_options* options,
                                                  const char* directory, size_t len) {
  return set_text("sluice_download_options_set_directory", options, directory, len,
                  [](DownloadOptions& o, std::string v) { o.target.directory = std::move(v); });
}

sluice_code sluice_download_options_add_mirror(sluice_download_options* options, const char* url,
                                               size_t len) {
  return set_text("sluice_download_options_add_mirror", options, url, len,
                  [](DownloadOptions& o, std::string v) { o.mirrors.push_back(std::move(v)); });
}

sluice_code sluice_download_options_set_resume(sluice_download_options* options, int resume) {
  return with_download("sluice_download_options_set_resume", options, [&](DownloadOptions& o) {
    o.resume = resume != 0;
    return ok();
  });
}

sluice_code sluice_download_options_set_ranges(sluice_download_options* options, unsigned ranges) {
  if (ranges < 1 || ranges > 16) {
    return invalid("sluice_download_options_set_ranges", "ranges must be 1 to 16");
  }
  return with_download("sluice_download_options_set_ranges", options, [&](DownloadOptions& o) {
    o.ranges = ranges;
    return ok();
  });
}

sluice_code sluice_download_options_set_sha256(sluice_download_options* options, const char* hex,
                                               size_t len) {
  std::string_view value;
  if (!text_argument(hex, len, value) || value.size() != 64 ||
      value.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
    return invalid("sluice_download_options_set_sha256", "hex is not 64 lowercase hex digits");
  }
  return with_download("sluice_download_options_set_sha256", options, [&](DownloadOptions& o) {
    o.sha256 = std::string(value);
    return ok();
  });
}

sluice_code sluice_download_options_set_max_bytes_per_second(sluice_download_options* options,
                                                             uint64_t bytes) {
  return with_download("sluice_download_options_set_max_bytes_per_second", options,
                       [&](DownloadOptions& o) {
                         o.max_bytes_per_second = bytes;
                         return ok();
                       });
}

sluice_code sluice_download_options_set_retries(sluice_download_options* options, int retries) {
  if (retries < 0) return invalid("sluice_download_options_set_retries", "retries is negative");
  return with_download("sluice_download_options_set_retries", options, [&](DownloadOptions& o) {
    o.retry.retries = retries;
    return ok();
  });
}

sluice_code sluice_download_options_set_progress(sluice_download_options* options,
                                                 sluice_progress_cb progress, void* user_data,
                                                 uint32_t interval_ms) {
  return with_download("sluice_download_options_set_progress", options, [&](DownloadOptions& o) {
    if (progress == nullptr) {
      o.on_progress = nullptr;
      return ok();
    }
    if (interval_ms > 0) o.progress_interval = std::chrono::milliseconds(interval_ms);
    o.on_progress = [progress, user_data](const DownloadProgress& p) {
      progress(user_data, p.bytes_done, p.total ? static_cast<int64_t>(*p.total) : -1,
               p.bytes_per_second, p.finished ? 1 : 0);
    };
    return ok();
  });
}

sluice_code sluice_download_options_cancel(sluice_download_options* options) {
  if (!usable(options)) return invalid("sluice_download_options_cancel", "options is not live");
  options->cancel.store(true);
  return ok();
}

sluice_code sluice_download(sluice_client* client, sluice_download_options* options,
                            sluice_download_result** out) {
  if (out == nullptr) return invalid("sluice_download", "out is NULL");
  *out = nullptr;
  if (!usable(client)) return invalid("sluice_download", "client is NULL or not a live client");
  if (!usable(options)) return invalid("sluice_download", "options is NULL or not live");
  return capi_call("sluice_download", [&] {
    auto result = download(client->client, options->options);
    if (!result) return fail(result.error());
    *out = new sluice_download_result(std::move(*result));
    return ok();
  });
}

void sluice_download_result_free(sluice_download_result* result) {
  if (usable(result)) delete result;
}

sluice_code sluice_download_result_path(const sluice_download_result* result, const char** path,
                                        size_t* len) {
  if (!usable(result)) return invalid("sluice_download_result_path", "result is not live");
  if (path == nullptr || len == nullptr) {
    return invalid("sluice_download_result_path", "path or len is NULL");
  }
  *path = result->result.path.c_str();
  *len = result->result.path.size();
  return ok();
}

int sluice_download_result_status(const sluice_download_result* result) {
  return usable(result) ? result->result.first_response.status : 0;
}

uint64_t sluice_download_result_size(const sluice_download_result* result) {
  return usable(result) ? result->result.size : 0;
}

uint64_t sluice_download_result_transferred(const sluice_download_result* result) {
  return usable(result) ? result->result.transferred : 0;
}

uint64_t sluice_download_result_resumed_from(const sluice_download_result* result) {
  return usable(result) ? result->result.resumed_from : 0;
}

unsigned sluice_download_result_ranges(const sluice_download_result* result) {
  return usable(result) ? result->result.ranges : 0;
}

unsigned sluice_download_result_steals(const sluice_download_result* result) {
  return usable(result) ? result->result.steals : 0;
}

size_t sluice_download_result_note_count(const sluice_download_result* result) {
  return usable(result) ? result->result.notes.size() : 0;
}

sluice_code sluice_download_result_note(const sluice_download_result* result, size_t index,
                                        const char** note, size_t* len) {
  if (!usable(result)) return invalid("sluice_download_result_note", "result is not live");
  if (note == nullptr || len == nullptr) {
    return invalid("sluice_download_result_note", "note or len is NULL");
  }
  if (index >= result->result.notes.size()) {
    return invalid("sluice_download_result_note", "index is past the last note");
  }
  *note = result->result.notes[index].c_str();
  *len = result->result.notes[index].size();
  return ok();
}

}  // extern "C"
