/* c_fetch: download one URL to standard output with sluice's C API, the way a C
 * program (or a language runtime's FFI) would embed it.
 *
 *   c_fetch URL [CA_FILE]
 *
 * Prints the status, the HTTP version and the headers to standard error, the body
 * to standard output. Exits 0 on a complete body, 1 on any failure, after saying
 * what failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sluice/sluice.h>

static int failed(const char* what, sluice_code code) {
  fprintf(stderr, "c_fetch: %s: %s (%s)\n", what, sluice_last_error(), sluice_code_name(code));
  return 1;
}

static int print_headers(const sluice_response* response) {
  size_t i;
  fprintf(stderr, "status %d, HTTP version %d\n", sluice_response_status(response),
          sluice_response_http_version(response));
  for (i = 0; i < sluice_response_header_count(response); ++i) {
    const char* name;
    const char* value;
    size_t name_len;
    size_t value_len;
    sluice_code code = sluice_response_header(response, i, &name, &name_len, &value, &value_len);
    if (code != SLUICE_OK) return failed("header", code);
    fprintf(stderr, "%.*s: %.*s\n", (int)name_len, name, (int)value_len, value);
  }
  return 0;
}

/* Writes the body as it arrives, from the staged bytes themselves (no copy). */
static int write_body(sluice_response* response) {
  for (;;) {
    const uint8_t* data;
    size_t len;
    sluice_code code = sluice_response_next(response, 0, &data, &len);
    if (code != SLUICE_OK) return failed("body", code);
    if (len == 0) return 0;
    if (fwrite(data, 1, len, stdout) != len) {
      fprintf(stderr, "c_fetch: writing standard output failed\n");
      return 1;
    }
  }
}

int main(int argc, char** argv) {
  sluice_client_options* options = NULL;
  sluice_client* client = NULL;
  sluice_request* request = NULL;
  sluice_response* response = NULL;
  sluice_code code;
  int status = 1;

  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: c_fetch URL [CA_FILE]\n");
    return 2;
  }
  if (sluice_version_num() != SLUICE_VERSION_NUM) {
    fprintf(stderr, "c_fetch: built against sluice %s but loaded %s\n", SLUICE_VERSION_STRING,
            sluice_version());
    return 1;
  }
  code = sluice_client_options_new(&options);
  if (code == SLUICE_OK && argc == 3) {
    code = sluice_client_options_set_ca_file(options, argv[2], strlen(argv[2]));
  }
  if (code != SLUICE_OK) {
    status = failed("options", code);
    goto done;
  }
  code = sluice_client_new(options, &client);
  if (code != SLUICE_OK) {
    status = failed("client", code);
    goto done;
  }
  code = sluice_request_new("GET", 3, argv[1], strlen(argv[1]), &request);
  if (code == SLUICE_OK) code = sluice_request_set_redirects(request, SLUICE_REDIRECT_FOLLOW, 10);
  if (code != SLUICE_OK) {
    status = failed("request", code);
    goto done;
  }
  code = sluice_client_fetch(client, request, &response);
  if (code != SLUICE_OK) {
    status = failed("fetch", code);
    goto done;
  }
  status = print_headers(response);
  if (status == 0) status = write_body(response);

done:
  sluice_response_free(response);
  sluice_request_free(request);
  sluice_client_free(client);
  sluice_client_options_free(options);
  return status;
}
