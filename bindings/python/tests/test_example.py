"""examples/download_many.py downloads several URLs at once, as its docstring says."""

import hashlib
import os
import pathlib
import subprocess
import sys

from conftest import ENV, sha256_of

EXAMPLE = pathlib.Path(__file__).parents[1] / "examples" / "download_many.py"


def test_download_many_fetches_every_url_with_a_progress_line(tmp_path):
    urls = [ENV["SLUICE_NGINX_HTTP_URL"] + "/1m.bin", ENV["SLUICE_NGINX_H2_URL"] + "/64m.bin",
            ENV["SLUICE_NGHTTPD_URL"] + "/small.txt"]
    env = dict(os.environ, SLUICE_CA_FILE=ENV["SLUICE_TEST_CA"])
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path), *urls], env=env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(tmp_path / name) for name in ("1m.bin", "64m.bin", "small.txt")]
    assert "3 files" in done.stderr and "MiB/s" in done.stderr
    for name in ("1m.bin", "64m.bin", "small.txt"):
        assert hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() == sha256_of(name)


def test_download_many_reports_a_failure_and_exits_non_zero(tmp_path):
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path),
                           ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt", "http://127.0.0.1:1/x"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "http://127.0.0.1:1/x:" in done.stderr
    assert (tmp_path / "small.txt").read_bytes() == pathlib.Path(
        ENV["SLUICE_FILES_DIR"], "small.txt").read_bytes()
