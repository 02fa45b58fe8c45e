"""Client.download(): files arrive whole (split into ranges, resumed, from mirrors),
progress comes on the loop, failures raise the package's errors."""

import asyncio
import hashlib
import pathlib
import threading

import pytest

import sluice
from conftest import ENV, sha256_of


def run(coroutine):
    return asyncio.run(coroutine)


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def served(name):
    return pathlib.Path(ENV["SLUICE_FILES_DIR"], name)


@pytest.mark.parametrize("url_key", ["SLUICE_NGINX_HTTP_URL", "SLUICE_NGINX_H2_URL"])
def test_a_split_download_arrives_whole(url_key, tmp_path):
    async def main():
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"]) as client:
            return await client.download(ENV[url_key] + "/64m.bin", tmp_path / "64m.bin", split=4,
                                         sha256=sha256_of("64m.bin"))
    result = run(main())
    assert (result.path, result.status, result.size) == (str(tmp_path / "64m.bin"), 206, 64 << 20)
    assert result.ranges >= 4 and result.transferred == 64 << 20 and result.resumed_from == 0
    assert file_sha256(tmp_path / "64m.bin") == sha256_of("64m.bin")
    assert not (tmp_path / "64m.bin.sluice").exists()  # complete: no control file left


def test_without_a_path_the_name_comes_from_the_url(tmp_path):
    async def main():
        async with sluice.Client() as client:
            return await client.download(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt",
                                         directory=tmp_path)
    result = run(main())
    assert result.path == str(tmp_path / "small.txt")
    assert file_sha256(result.path) == sha256_of("small.txt")


def test_resume_keeps_the_bytes_on_disk_and_fetches_the_rest(tmp_path):
    target = tmp_path / "1m.bin"
    target.write_bytes(served("1m.bin").read_bytes()[:300_000])

    async def main():
        async with sluice.Client() as client:
            return await client.download(ENV["SLUICE_NGINX_HTTP_URL"] + "/1m.bin", target,
                                         resume=True)
    result = run(main())
    assert (result.resumed_from, result.transferred, result.size) == (300_000, 748_576, 1 << 20)
    assert file_sha256(target) == sha256_of("1m.bin")


def test_a_cancelled_download_resumes_where_it_stopped(tmp_path):
    target = tmp_path / "64m.bin"
    url = ENV["SLUICE_NGINX_HTTP_URL"] + "/slow/64m.bin"  # 4 MB/s: it is under way when cancelled

    async def main():
        async with sluice.Client() as client:
            arrived = asyncio.Event()
            task = asyncio.create_task(client.download(
                url, target, progress=lambda report: report.bytes_done and arrived.set(),
                progress_interval=0.01))
            await arrived.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # The download has stopped (cancel waits for it): file and control file stay.
            kept = target.stat().st_size
            assert (tmp_path / "64m.bin.sluice").exists()
            return kept, await client.download(url, target, resume=True, split=8)
    kept, result = run(main())
    assert result.resumed_from > 0 and result.resumed_from + result.transferred == 64 << 20
    assert kept > 0
    assert file_sha256(target) == sha256_of("64m.bin")


def test_closing_the_client_ends_a_download_under_way_with_cancelled_error(tmp_path):
    async def main():
        client = sluice.Client()
        arrived = asyncio.Event()
        task = asyncio.create_task(client.download(
            ENV["SLUICE_NGINX_HTTP_URL"] + "/slow/64m.bin", tmp_path / "64m.bin",
            progress=lambda report: report.bytes_done and arrived.set(), progress_interval=0.01))
        await arrived.wait()
        client.close()  # stops the download and waits for its thread before the free
        with pytest.raises(sluice.CancelledError):
            await task
    run(main())
    assert (tmp_path / "64m.bin.sluice").exists()  # kept for a resume


def test_progress_is_reported_on_the_loop_and_ends_with_a_finished_report(tmp_path):
    reports = []

    async def main():
        loop_thread = threading.get_ident()

        def on_progress(report):
            assert threading.get_ident() == loop_thread
            reports.append(report)
        async with sluice.Client() as client:
            result = await client.download(ENV["SLUICE_NGINX_HTTP_URL"] + "/64m.bin",
                                           tmp_path / "64m.bin", split=2, progress=on_progress,
                                           progress_interval=0.01)
            # Every report reached the loop before the result did.
            assert reports and reports[-1].finished
            return result
    result = run(main())
    done = [report.bytes_done for report in reports]
    assert done == sorted(done)
    assert reports[-1] == sluice.DownloadProgress(64 << 20, 64 << 20, reports[-1].bytes_per_second,
                                                  True)
    assert [report.finished for report in reports].count(True) == 1
    assert result.size == 64 << 20


def test_a_mirror_shares_the_ranges_and_the_file_arrives_whole(tmp_path):
    async def main():
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"]) as client:
            return await client.download(
                ENV["SLUICE_NGINX_HTTP_URL"] + "/64m.bin", tmp_path / "64m.bin",
                mirrors=[ENV["SLUICE_NGINX_HTTPS_URL"] + "/64m.bin"], sha256=sha256_of("64m.bin"))
    result = run(main())
    assert result.ranges >= 2  # one for the URL, one for the mirror
    assert file_sha256(tmp_path / "64m.bin") == sha256_of("64m.bin")


def test_a_mirror_serving_another_file_is_dropped_with_a_note(tmp_path):
    wrong = ENV["SLUICE_NGINX_HTTP_URL"] + "/1m.bin"

    async def main():
        async with sluice.Client() as client:
            return await client.download(ENV["SLUICE_NGINX_HTTP_URL"] + "/64m.bin",
                                         tmp_path / "64m.bin", mirrors=[wrong])
    result = run(main())
    assert any(wrong in note and "dropped" in note for note in result.notes), result.notes
    assert file_sha256(tmp_path / "64m.bin") == sha256_of("64m.bin")


def test_a_missing_file_raises_http_error_and_writes_nothing(tmp_path):
    async def main():
        async with sluice.Client() as client:
            with pytest.raises(sluice.HttpError, match="404"):
                await client.download(ENV["SLUICE_NGINX_HTTP_URL"] + "/no-such-file",
                                      tmp_path / "out")
    run(main())
    assert list(tmp_path.iterdir()) == []


def test_a_wrong_checksum_raises_protocol_error_and_never_leaves_the_file(tmp_path):
    async def main():
        async with sluice.Client() as client:
            with pytest.raises(sluice.ProtocolError):
                await client.download(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt",
                                      tmp_path / "small.txt", sha256="0" * 64)
    run(main())
    assert not (tmp_path / "small.txt").exists()


def test_bad_arguments_are_usage_errors():
    async def main():
        async with sluice.Client() as client:
            with pytest.raises(sluice.UsageError):
                await client.download(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt", split=17)
            with pytest.raises(sluice.UsageError):
                await client.download(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt", sha256="abc")
    run(main())
