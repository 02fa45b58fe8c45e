# Included by tests/CMakeLists.txt: tests of the `sluice` command, each a case of a
# bash script in tests/cli run against the built binary. Names say the behaviour.
#   cli.args.*   option handling, no network
#   cli.local.*  local peers that misbehave on purpose (python3), no fixture
#   cli.nginx.*  the real nginx of the real_servers fixture (tests/integration/servers.cmake)
#   cli.auth.*   authentication against the fixture's lighttpd (Digest) and nginx (Basic)

if(NOT TARGET sluice_cli)
  return()
endif()

set(SLUICE_CLI_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})

# sluice_cli_tests(SCRIPT PREFIX CASE...): one ctest test per case. Labelled `threaded`
# (see tests/CMakeLists.txt): a transfer runs on the Client's thread, downloads on
# several, the progress bar on its own; in a TSan build the binary is instrumented too.
function(sluice_cli_tests script prefix)
  foreach(case IN LISTS ARGN)
    add_test(NAME cli.${prefix}.${case}
      COMMAND bash ${SLUICE_CLI_TEST_DIR}/${script} $<TARGET_FILE:sluice_cli> ${case})
    set_tests_properties(cli.${prefix}.${case} PROPERTIES TIMEOUT 120 LABELS threaded)
  endforeach()
endfunction()

sluice_cli_tests(cli_args.sh args
  unknown_long_option_exits_2_naming_it
  unknown_short_option_in_a_cluster_exits_2_naming_it
  missing_url_exits_2_with_usage_hint
  option_without_value_exits_2
  time_cond_without_a_date_exits_2
  one_output_file_for_two_urls_exits_2
  mirror_for_two_urls_exits_2
  download_options_check_their_values
  version_names_version_protocols_and_features
  help_needs_no_url_even_after_other_options
  header_without_colon_is_refused
  header_with_bad_name_or_value_is_refused
  bad_method_is_refused
  unknown_write_out_variable_warns_and_the_transfer_runs
  bad_numbers_are_refused
  malformed_url_exits_3
  unreadable_data_file_exits_26
  streamed_file_cannot_join_other_data)

sluice_cli_tests(cli_local.sh local
  connection_refused_exits_7
  silent_hides_errors_and_show_error_brings_them_back
  max_time_expires_exits_28
  truncated_body_exits_18_and_names_the_incomplete_file
  truncated_body_to_stdout_is_an_error
  http10_answer_is_reported_as_1_0
  full_disk_exits_23
  unwritable_output_path_exits_23
  output_file_and_write_out_after_the_body
  verbose_prints_request_and_response_heads
  data_makes_a_form_post_and_header_options_replace_or_drop
  retry_in_fetch_mode_retries_a_503_and_writes_to_stdout
  retry_without_retries_left_reports_the_last_answer
  retry_continues_a_cut_body_on_stdout_from_a_range
  retry_skips_what_was_written_when_the_server_ignores_the_range
  verbose_lines_of_a_retry_stay_above_the_meter
  limit_rate_alone_fetches_to_stdout
  download_retry_against_a_server_that_ignores_ranges_completes
  form_sends_fields_and_streams_a_file_as_multipart
  get_with_data_urlencode_puts_the_data_in_the_query
  json_posts_concatenated_pieces_with_json_headers
  data_raw_sends_an_at_sign_as_is
  upload_file_puts_it_under_its_name
  upload_from_stdin_streams_it_chunked
  body_options_that_contradict_are_refused
  write_out_headers_json_and_stderr
  fail_with_body_writes_the_body_and_exits_22
  remove_on_error_leaves_no_partial_file
  max_filesize_refuses_an_announced_or_growing_body
  json_summary_of_a_failed_download_says_what_it_got)

set(SLUICE_CLI_NGINX_CASES
  verbose_request_line_names_h2_and_h3
  verbose_after_a_redirect_shows_the_get_that_went
  etag_save_and_compare_fetch_only_what_changed
  time_cond_fetches_only_a_newer_file
  time_cond_unmodified_since
  trace_ascii_shows_the_request_and_response_bytes
  trace_over_https_h2_dumps_the_decrypted_frames
  trace_over_http3_dumps_each_streams_bytes
  trace_to_stdout
  time_cond_in_download_mode
  time_cond_that_is_no_date_nor_file_warns
  downloads_to_stdout_match_sha256sums
  downloads_to_output_file_match_sha256sums
  write_out_reports_the_transfer
  write_out_names_the_request_and_its_head_as_curl_does
  write_out_onerror_and_output_file
  write_out_times_each_step_and_names_the_address
  proxy_option_forwards_http_and_tunnels_https
  proxy_comes_from_the_environment_as_in_curl
  proxy_refusal_names_the_proxy_and_credentials_open_it
  socks5_carries_http_and_https
  https_proxy_carries_http_and_https
  resolve_and_connect_to_choose_where_to_connect
  unix_socket_carries_http1_and_h2c
  ipv6_only_refuses_an_ipv4_server
  interface_and_local_port_choose_where_connections_leave_from
  include_head_and_dump_header_show_the_response_head
  url_without_scheme_is_taken_as_http
  user_and_bearer_authenticate
  https_to_http_redirect_is_refused_unless_proto_redir_allows_it
  fail_on_404_exits_22_without_output
  404_without_fail_is_a_success_with_the_error_page
  location_follows_one_redirect
  redirect_is_not_followed_without_location
  max_redirs_stops_a_longer_chain
  https_with_cacert_downloads
  https_untrusted_certificate_exits_60
  client_certificate_opens_mutual_tls
  pinnedpubkey_mismatch_names_both_pins
  split_over_tls_resumes_after_the_first_handshake
  http2_is_negotiated_and_reported
  http2_prior_knowledge_speaks_h2c
  http3_only_speaks_h3_to_caddy
  http3_falls_back_and_http3_only_fails_without_quic
  insecure_skips_verification
  write_out_ssl_verify_result_reports_the_certificate_check
  write_out_ssl_verify_result_over_http3_matches_tcp
  write_out_in_download_mode_names_the_connection_and_the_check
  compressed_decodes_gzip
  upload_streams_a_file_with_data_binary
  data_file_is_sent_without_newlines
  closed_stdout_exits_23)
# Sanitizers inflate RSS by far more than the body, so the memory bound only holds
# in ordinary builds.
if(NOT SLUICE_SANITIZE)
  list(APPEND SLUICE_CLI_NGINX_CASES stalled_stdout_keeps_memory_flat)
endif()
sluice_cli_tests(cli_nginx.sh nginx ${SLUICE_CLI_NGINX_CASES})
foreach(case IN LISTS SLUICE_CLI_NGINX_CASES)
  set_tests_properties(cli.nginx.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# The downloader: real nginx (ranges), local python peers (no ranges, a hostile
# Content-Disposition), a pseudo-terminal for the bar (script(1)).
set(SLUICE_CLI_DOWNLOAD_CASES
  segmented_download_matches
  killed_segmented_download_resumes
  continue_a_truncated_file
  server_without_ranges_gets_one_connection
  mirrors_share_the_ranges_and_a_dead_one_is_dropped
  checksum_mismatch_is_an_error_and_the_file_is_not_complete
  limit_rate_is_accurate
  remote_header_name_is_used_safely
  names_that_are_not_utf8_stay_printable_and_json_parses
  resuming_a_complete_file_is_a_success
  parallel_list_json_and_create_dirs
  failed_download_in_a_list_sets_the_exit_code
  progress_bar_on_a_terminal_ends_on_a_clean_line
  fetch_to_a_file_shows_the_meter_on_a_terminal
  no_progress_when_not_a_terminal_unless_asked)
sluice_cli_tests(cli_download.sh download ${SLUICE_CLI_DOWNLOAD_CASES})
foreach(case IN LISTS SLUICE_CLI_DOWNLOAD_CASES)
  set_tests_properties(cli.download.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# State kept between runs (cli_state.sh): --alt-svc with caddy's Alt-Svc, --hsts
# with nginx's Strict-Transport-Security, beside curl; --ssl-sessions over TCP and QUIC.
set(SLUICE_CLI_STATE_CASES
  alt_svc_file_takes_the_second_run_to_http3
  alt_svc_file_is_curls
  alt_svc_file_skips_bad_expired_and_foreign_lines
  hsts_file_upgrades_the_next_run_to_https
  hsts_is_learned_from_a_followed_redirect
  hsts_is_learned_only_where_the_rfc_allows
  ssl_sessions_file_resumes_the_next_run)
sluice_cli_tests(cli_state.sh state ${SLUICE_CLI_STATE_CASES})
foreach(case IN LISTS SLUICE_CLI_STATE_CASES)
  set_tests_properties(cli.state.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# Authentication (cli_auth.sh): lighttpd's Digest and nginx's Basic, netrc files.
set(SLUICE_CLI_AUTH_CASES
  digest_user_opens_md5_and_sha256
  anyauth_answers_digest_or_basic
  netrc_file_supplies_the_credentials
  netrc_file_errors_name_the_file)
sluice_cli_tests(cli_auth.sh auth ${SLUICE_CLI_AUTH_CASES})
foreach(case IN LISTS SLUICE_CLI_AUTH_CASES)
  set_tests_properties(cli.auth.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# Cookies (-b, -c, -j) against nginx's /cookies/ locations.
set(SLUICE_CLI_COOKIE_CASES
  cookie_jar_writes_the_netscape_file_curl_writes
  secure_cookie_goes_over_https_only
  cookie_file_is_sent_with_b
  verbose_shows_the_cookie_the_jar_sends
  cookie_data_is_sent_as_is
  junk_session_cookies_drops_session_cookies
  cookie_jar_to_stdout_follows_the_body
  downloads_share_one_jar
  help_and_usage_errors)
sluice_cli_tests(cli_cookies.sh cookies ${SLUICE_CLI_COOKIE_CASES})
foreach(case IN LISTS SLUICE_CLI_COOKIE_CASES)
  set_tests_properties(cli.cookies.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# URL globbing (cli_glob.sh), compared with curl: nginx serves the globbed files; the
# refusals need no server (a local listener shows that nothing connected).
set(SLUICE_CLI_GLOB_NGINX_CASES
  set_names_each_output_file_as_curl_does
  patterns_request_the_urls_curl_requests_in_its_order
  remote_name_names_each_file_from_its_url
  glob_of_one_url_is_a_single_fetch
  input_file_lines_are_globbed
  globoff_sends_braces_as_text
  each_output_pairs_with_its_url_as_curl_does)
sluice_cli_tests(cli_glob.sh glob ${SLUICE_CLI_GLOB_NGINX_CASES}
  bad_glob_exits_2_naming_the_position_and_sends_nothing
  one_output_name_for_several_urls_is_refused
  more_or_fewer_outputs_than_urls_are_refused
  ipv6_host_is_not_a_glob)
foreach(case IN LISTS SLUICE_CLI_GLOB_NGINX_CASES)
  set_tests_properties(cli.glob.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# curl's options that scripts pass along (cli_curl_compat.sh), compared with real
# curl against the fixture's nginx.
set(SLUICE_CLI_CURL_COMPAT_CASES
  url_option_adds_a_url_like_a_bare_argument
  referer_is_sent_as_curl_sends_it
  referer_auto_names_each_hops_previous_url
  progress_bar_and_no_progress_meter_choose_the_meter
  no_buffer_is_accepted
  header_file_sends_one_header_a_line
  proto_refuses_a_url_with_exit_1
  proto_and_proto_redir_refuse_a_redirect_with_exit_1
  post301_and_post302_keep_the_post
  location_trusted_sends_credentials_to_the_next_origin
  retry_connrefused_retries_a_refused_connection
  retry_max_time_stops_the_retries
  retry_max_time_bounds_a_downloads_retries)
sluice_cli_tests(cli_curl_compat.sh curl_compat ${SLUICE_CLI_CURL_COMPAT_CASES})
foreach(case IN LISTS SLUICE_CLI_CURL_COMPAT_CASES)
  set_tests_properties(cli.curl_compat.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# Config files (cli_config.sh): -K compared with curl -K on nginx, the default file
# and -q, lines that do not parse; the last two cases need no server.
set(SLUICE_CLI_CONFIG_NGINX_CASES
  config_file_makes_the_request_curl_makes
  bad_line_exits_2_naming_the_file_and_line_and_sends_nothing
  config_from_stdin
  default_file_is_read_first_and_q_skips_it)
sluice_cli_tests(cli_config.sh config ${SLUICE_CLI_CONFIG_NGINX_CASES}
  unreadable_config_exits_26_as_in_curl
  help_names_config_and_disable)
foreach(case IN LISTS SLUICE_CLI_CONFIG_NGINX_CASES)
  set_tests_properties(cli.config.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# HTTP/1.0, international host names and -v's TLS lines (cli_protocols.sh), beside
# curl: a local echo peer for the request line and Host header; nginx and caddy for TLS.
set(SLUICE_CLI_PROTOCOLS_SERVER_CASES
  http10_against_nginx_over_http_and_https
  parallel_downloads_finish_against_one_request_per_connection
  verbose_tls_lines_match_curls
  verbose_tls_lines_over_http3
  verbose_tls_says_nothing_over_plain_http)
sluice_cli_tests(cli_protocols.sh protocols ${SLUICE_CLI_PROTOCOLS_SERVER_CASES}
  http10_request_line_on_the_wire_as_curl_sends_it
  http10_upload_of_unknown_length_is_refused
  idn_host_goes_out_as_its_a_label_as_curl_sends_it
  idn_host_that_does_not_convert_exits_3_as_curl)
foreach(case IN LISTS SLUICE_CLI_PROTOCOLS_SERVER_CASES)
  set_tests_properties(cli.protocols.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# How fast a transfer must and may go, and curl's exit codes for failures it numbers
# apart (cli_speed_exit.sh), beside curl: local python peers that trickle, close or
# reset; the fixture's nginx for gzip, a CA file and parallel downloads.
set(SLUICE_CLI_SPEED_EXIT_SERVER_CASES
  speed_limit_leaves_a_fast_transfer_alone
  limit_rate_total_holds_parallel_downloads_under_it
  size_download_counts_the_encoded_bytes_as_curl
  unreadable_ca_file_exits_77_as_curl)
sluice_cli_tests(cli_speed_exit.sh speed_exit ${SLUICE_CLI_SPEED_EXIT_SERVER_CASES}
  speed_limit_aborts_a_trickle_with_28_as_curl
  speed_limit_aborts_a_download_with_28
  speed_options_check_their_values
  empty_reply_exits_52_as_curl
  close_inside_the_head_exits_8
  reset_mid_body_exits_56_as_curl
  bad_gzip_exits_61_as_curl
  proxy_that_is_not_socks5_exits_97_as_curl)
foreach(case IN LISTS SLUICE_CLI_SPEED_EXIT_SERVER_CASES)
  set_tests_properties(cli.speed_exit.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# --help and its categories beside curl's (cli_help.sh), and the shell completions the
# command writes, sourced in bash and asked to complete (cli_completion.sh).
sluice_cli_tests(cli_help.sh help
  bare_help_shows_the_important_options_and_the_way_to_the_rest
  help_category_lists_curls_categories_that_apply
  help_with_a_category_shows_only_its_options
  help_all_lists_every_option
  help_unknown_category_exits_2_naming_it)
sluice_cli_tests(cli_completion.sh completion
  bash_completes_an_option_prefix
  bash_completes_files_after_a_file_option
  bash_offers_no_files_for_a_value_that_is_not_a_path
  bash_completes_help_categories
  zsh_script_defines_every_option
  unknown_shell_exits_2_naming_it)

# AWS Signature Version 4 (cli_aws_sigv4.sh): sluice and curl 7.88 against a loopback
# server that checks each signature with its own implementation; no fixture.
sluice_cli_tests(cli_aws_sigv4.sh aws_sigv4
  signs_as_curl_does_for_s3_and_other_services
  signs_an_unsorted_query_and_an_upload_where_curl_788_does_not
  a_wrong_secret_is_refused_as_curl_is
  each_redirect_hop_is_signed_and_no_other_host_gets_the_signature
  a_scope_that_cannot_sign_exits_2_naming_the_option
  moto_s3_accepts_every_request_sluice_signs)

# Which bytes reach which output, in both modes (cli_ranges.sh): -m under
# --limit-rate, outputs that are not regular files, -C - and -C OFFSET, -r,
# --no-clobber; beside curl on the fixture's nginx and lighttpd.
set(SLUICE_CLI_RANGE_CASES
  max_time_is_a_deadline_under_limit_rate
  downloader_writes_to_dev_null_a_fifo_and_a_pipe
  continue_a_complete_file_succeeds_in_both_modes
  continue_at_an_offset_in_both_modes
  range_in_fetch_mode_is_what_curl_writes
  range_download_resumes_byte_exact
  no_clobber_keeps_existing_files_in_both_modes)
sluice_cli_tests(cli_ranges.sh ranges ${SLUICE_CLI_RANGE_CASES})
foreach(case IN LISTS SLUICE_CLI_RANGE_CASES)
  set_tests_properties(cli.ranges.${case} PROPERTIES
    FIXTURES_REQUIRED real_servers
    ENVIRONMENT "SLUICE_TEST_ENV_FILE=${CMAKE_BINARY_DIR}/test-env/env")
endforeach()

# Where credentials go (cli_secrets.sh): a loopback peer on two ports notes what each
# request brought, across redirects, a download's ranges and its mirrors; beside curl
# 7.88 where curl has the options; no fixture.
sluice_cli_tests(cli_secrets.sh secrets
  credentials_stay_behind_on_a_redirect_to_another_host
  credentials_stay_behind_on_a_redirect_to_another_port
  location_trusted_takes_them_to_the_next_origin
  split_download_sends_no_credentials_to_another_origins_ranges
  split_download_with_location_trusted_sends_them_to_every_range
  split_download_keeps_the_urls_credentials_for_its_ranges
  proxy_user_with_a_line_break_is_refused
  split_download_ranges_weigh_the_urls_credentials_as_the_first_request
  mirror_on_another_origin_gets_no_credentials
  a_download_never_shows_the_urls_password
  a_control_file_never_keeps_the_urls_password)

# Input that is not trusted (cli_input_safety.sh): line breaks in what goes on the
# wire, a server's cookies, file names and lengths, through a loopback peer that notes
# what it received; beside curl 7.88 where curl has the options; no fixture.
sluice_cli_tests(cli_input_safety.sh input
  line_breaks_in_what_goes_on_the_wire_are_refused_and_nothing_is_sent
  redirect_location_cannot_inject_into_the_next_request
  cookies_from_http_leave_secure_ones_alone_and_public_suffixes_are_refused
  server_file_names_stay_in_the_output_directory
  server_file_name_replaces_a_file_only_with_clobber
  socks5_host_name_longer_than_its_length_byte_is_refused
  huge_lengths_from_the_server_are_a_cut_body_not_an_allocation)
