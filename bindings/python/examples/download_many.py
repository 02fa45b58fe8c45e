#!/usr/bin/env python3
"""Downloads several URLs at once through one sluice Client, in one asyncio loop,
with one progress line for all of them.

    SLUICE_LIBRARY=build/libsluice.so PYTHONPATH=bindings/python \\
        /usr/bin/python3 bindings/python/examples/download_many.py DIR URL...
"""

import asyncio
import os
import pathlib
import sys
import time
import urllib.parse

import sluice


async def download(client, url, directory, progress):
    name = pathlib.PurePosixPath(urllib.parse.urlsplit(url).path).name or "index.html"
    path = pathlib.Path(directory, name)
    response = await client.fetch(url, redirect="follow")
    if response.status != 200:
        raise sluice.Error(1100, f"{url}: HTTP status {response.status}")
    with open(path, "wb") as out:
        async for chunk in response.body:  # the stream holds at its mark while we write
            out.write(chunk)
            progress[url] += len(chunk)
    return path


async def show(progress, total_urls, done):
    start = time.monotonic()
    while True:  # one line, redrawn every 0.2 s, and once more at the end
        got = sum(progress.values())
        rate = got / max(time.monotonic() - start, 1e-3) / 2**20
        print(f"\r{total_urls} files, {got / 2**20:8.1f} MiB, {rate:7.1f} MiB/s",
              end="", file=sys.stderr, flush=True)
        if done.is_set():
            break
        try:
            await asyncio.wait_for(done.wait(), 0.2)
        except asyncio.TimeoutError:
            pass
    print(file=sys.stderr)


async def main(directory, urls):
    os.makedirs(directory, exist_ok=True)
    progress = {url: 0 for url in urls}
    done = asyncio.Event()
    async with sluice.Client(ca_file=os.environ.get("SLUICE_CA_FILE")) as client:
        shower = asyncio.create_task(show(progress, len(urls), done))
        results = await asyncio.gather(*(download(client, url, directory, progress) for url in urls),
                                       return_exceptions=True)
        done.set()
        await shower
    failed = 0
    for url, result in zip(urls, results):
        if isinstance(result, BaseException):
            failed += 1
            print(f"{url}: {result}", file=sys.stderr)
        else:
            print(result)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2:])))
