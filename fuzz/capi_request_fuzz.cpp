// Fuzz target: the C API's request builder (sluice_request_new, _add_header and the
// setters), the way a binding passes caller bytes through FFI: lengths beside
// pointers, any byte, NULL pointers, out-of-range numbers, handles of the wrong kind.
// Input: a sequence of operations; each is one byte choosing the call, then its
// arguments (lengths in one byte, text taken from the input as is).
// Invariants checked: no call crashes or throws; each returns SLUICE_OK or an error
// code with a non-empty message; a header is accepted exactly when its name is a token
// and its value has no CR, LF or NUL; an accepted request reports no header it
// refused (sluice_request_new's URL is checked only when sent, not here).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "fuzz_input.hpp"
#include "sluice/headers.hpp"
#include "sluice/sluice.h"

namespace {

using sluice::fuzz::check;
using sluice::fuzz::FuzzInput;

void check_code(sluice_code code) {
  check(code == SLUICE_OK || code >= 100, "a request call returned a state where only errors are");
  if (code != SLUICE_OK) check(sluice_last_error()[0] != '\0', "an error came without a message");
}

// NULL for an empty piece half the time, as a careless binding passes.
const char* pointer_of(std::string_view text, bool null_when_empty) {
  return text.empty() && null_when_empty ? nullptr : text.data();
}

void run_one(FuzzInput& in, sluice_request* request, sluice_client_options* other) {
  const std::uint8_t op = in.byte();
  switch (op % 8) {
    case 0: {
      const std::string_view name = in.take(in.byte() % 32);
      const std::string_view value = in.take(in.byte() % 64);
      const sluice_code code = sluice_request_add_header(request, pointer_of(name, op & 8),
                                                         name.size(), value.data(), value.size());
      check_code(code);
      const bool valid = sluice::validate_header(name, value).ok() && (!name.empty() || !(op & 8));
      check((code == SLUICE_OK) == valid, "add_header disagrees with validate_header");
      break;
    }
    case 1: {
      const std::string_view body = in.take(in.byte());
      check_code(sluice_request_set_body_bytes(request, pointer_of(body, op & 8), body.size()));
      break;
    }
    case 2: check_code(sluice_request_set_allowance(request, in.u16(), in.u16())); break;
    case 3:
      check_code(
          sluice_request_set_version(request, static_cast<sluice_version_policy>(in.byte() % 9)));
      break;
    case 4:
      check_code(sluice_request_set_timeout_ms(request, static_cast<sluice_timeout>(in.byte() % 7),
                                               in.u16()));
      break;
    case 5:
      check_code(sluice_request_set_redirects(request,
                                              static_cast<sluice_redirect_mode>(in.byte() % 4),
                                              static_cast<int>(in.byte()) - 8));
      break;
    case 6: {
      const std::string_view path = in.take(in.byte() % 32);
      check_code(sluice_request_set_body_file(request, pointer_of(path, op & 8), path.size()));
      break;
    }
    default:
      // A handle of another kind where a request is expected.
      check(sluice_request_set_decode(reinterpret_cast<sluice_request*>(other), 1) ==
                SLUICE_E_INVALID_ARGUMENT,
            "options were taken for a request");
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  const std::string_view method = in.take(in.byte() % 16);
  const std::string_view url = in.take(in.byte() % 64);
  sluice_request* request = nullptr;
  const sluice_code made = sluice_request_new(pointer_of(method, size & 1), method.size(),
                                              pointer_of(url, size & 2), url.size(), &request);
  check_code(made);
  check((made == SLUICE_OK) == (request != nullptr), "a request handle without success, or none");
  if (request == nullptr) return 0;
  sluice_client_options* other = nullptr;
  check(sluice_client_options_new(&other) == SLUICE_OK, "no options handle");
  while (!in.empty()) run_one(in, request, other);
  sluice_client_options_free(other);
  sluice_request_free(request);
  return 0;
}
