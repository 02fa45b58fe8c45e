"""sluice.Form: a multipart/form-data body that aiohttp's server (a real multipart
parser) takes apart into the same fields and file, the file streamed from disk."""

import asyncio
import hashlib
import os

import pytest
from aiohttp import web

import sluice


async def form_echo_server():
    """aiohttp parses the form; the answer names each part and its SHA-256."""
    async def handle(request):
        lines = []
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            data = await part.read()
            lines.append(f"{part.name}|{part.filename}|{part.headers.get('Content-Type')}|"
                         f"{hashlib.sha256(data).hexdigest()}")
        return web.Response(text="\n".join(lines))
    app = web.Application(client_max_size=64 << 20)
    app.router.add_post("/form", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    return runner, f"http://127.0.0.1:{port}/form"


def test_a_form_reaches_a_multipart_parser_whole(tmp_path):
    payload = os.urandom(3 << 20)
    path = tmp_path / "upload.json"
    path.write_bytes(payload)

    async def main():
        runner, url = await form_echo_server()
        try:
            async with sluice.Client() as client:
                form = (sluice.Form().field("title", "naïve")
                        .file("doc", path).file("raw", path, filename="x.bin",
                                                content_type="application/x-test"))
                response = await client.fetch(url, method="POST", body=form)
                assert response.status == 200
                return (await response.read()).decode().splitlines()
        finally:
            await runner.cleanup()

    sha = hashlib.sha256(payload).hexdigest()
    assert asyncio.run(main()) == [
        f"title|None|None|{hashlib.sha256('naïve'.encode()).hexdigest()}",
        f"doc|upload.json|application/json|{sha}",
        f"raw|x.bin|application/x-test|{sha}",
    ]


def test_a_missing_form_file_fails_naming_it(tmp_path):
    async def main():
        async with sluice.Client() as client:
            form = sluice.Form().file("doc", tmp_path / "missing.bin")
            await client.fetch("http://127.0.0.1:9/", method="POST", body=form)

    with pytest.raises(sluice.LocalIOError, match="missing.bin"):
        asyncio.run(main())


def test_form_arguments_are_checked():
    with pytest.raises(TypeError):
        sluice.Form().field("a", 1)
    with pytest.raises(TypeError):
        sluice.Form().file(2, "/x")
