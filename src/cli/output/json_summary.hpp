#pragma once
// --json-summary: one JSON object per download, on one line of stdout, written when the
// download ends (success or failure), so a script can read a line per transfer.
// Ownership: pure functions returning text; the caller prints it.

#include <string>

#include "sluice/download.hpp"
#include "sluice/error.hpp"

namespace sluice::cli {

/// {"url":..., "ok":true, "path":..., "status":200, "http_version":"2", "size":...,
///  "transferred":..., "resumed_from":..., "ranges":..., "retries":..., "seconds":...,
///  "bytes_per_second":..., "exit_code":0, "error":null, "notes":[...]} and a newline.
/// On failure "ok" is false, "error" the message and "category" its category, and
/// `last` (the download's last progress report, when it made one) gives what is
/// known: "path", "size" (null when unknown), "transferred", "resumed_from" and
/// "bytes_on_disk", so a script knows what `-C -` would continue.
std::string json_summary(const std::string& url, const Result<DownloadResult>& result,
                         int exit_code, const DownloadProgress* last = nullptr);

/// `text` as a JSON string literal: quotes, backslashes and control characters (C1
/// included) escaped, valid UTF-8 as it is, and each byte that is not UTF-8 (a server's
/// file name can hold any) as U+FFFD, so the line always parses as JSON.
std::string json_string(std::string_view text);

}  // namespace sluice::cli
