// The `sluice` command: parse, then run one transfer (curl's way: to stdout or -o) or
// downloads (to files, resumable, several at once). Main thread only.

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include "cli/downloads.hpp"
#include "cli/exit_codes.hpp"
#include "cli/options/cli_options.hpp"
#include "cli/options/help/completion_script.hpp"
#include "cli/options/help/usage_text.hpp"
#include "cli/options/syntax/protocol_list.hpp"
#include "cli/transfer.hpp"
#include "sluice/download.hpp"

int main(int argc, char** argv) {
  using namespace sluice::cli;
  // A closed pipe (sluice URL | head) must become a write error (exit 23), not a kill.
  std::signal(SIGPIPE, SIG_IGN);

  // Hidden: the build writes the shell completions with it (completion_script.hpp).
  if (argc == 3 && std::string_view(argv[1]) == "--completion") {
    sluice::Result<std::string> script = completion_script(argv[2]);
    if (!script) {
      print_error(script.error().message());
      return kExitUsage;
    }
    std::fputs(script->c_str(), stdout);
    return kExitOk;
  }
  sluice::Result<CliOptions> options = parse_command_line(argc, argv);
  if (!options) {
    print_error(options.error().message());
    return options.error().category() == sluice::ErrorCategory::io ? kExitReadError : kExitUsage;
  }
  if (options->show_help) {
    sluice::Result<std::string> help = help_text(options->help_category);
    if (!help) {
      print_error(help.error().message());
      return kExitUsage;
    }
    std::fputs(help->c_str(), stdout);
    return kExitOk;
  }
  if (options->show_version) {
    std::fputs(version_text().c_str(), stdout);
    return kExitOk;
  }
  if (auto refused = first_refused_url(options->urls, options->protocols)) {
    print_error(*refused);
    return kExitUnsupportedProtocol;
  }
  // Several URLs, or any downloader option: files through sluice::download(). So is
  // -C - where an interrupted download left its control file: only the downloader
  // knows which of the file's bytes are there.
  const bool control_file_beside =
      options->download.resume && !options->writes_to_stdout() &&
      std::filesystem::exists(sluice::control_file_path(options->output_path));
  if (options->download.asked || options->urls.size() > 1 || control_file_beside) {
    if (options->include_head || options->head_only || !options->dump_header_path.empty()) {
      print_error(
          "-i, -I and -D show one response: they cannot be combined with several "
          "URLs or downloader options");
      return kExitUsage;
    }
    return run_downloads(*options);
  }
  if (options->urls.empty()) {
    print_error("no URL given (usage: sluice [options] URL...; try 'sluice --help')");
    return kExitUsage;
  }
  return run_transfer(*options);
}
