// The text `sluice-bench help` prints: every subcommand and option in one place,
// kept beside bench/README.md, which explains the figures. Any thread; no state.

#include <string>

#include "bench/bench_options.hpp"

namespace sluice::bench {

std::string usage_text() {
  return R"(usage: sluice-bench SUBCOMMAND [options]

Each benchmark prints one figure per line on stdout as `name value` (machine
readable) and a short summary on stderr. See bench/README.md for how to read them.

subcommands:
  throughput --url URL [--runs N] [--copy]
      Downloads URL N times (default 3), borrowing each staged chunk in place
      (BodyReader::next) and discarding it; --copy reads into a 256 KiB buffer
      (BodyReader::read) instead. Prints the median MiB/s and CPU seconds per GiB. When curl is
      on PATH, runs `curl -s -o /dev/null` on the same URL interleaved with ours
      and prints its figures and ratio_vs_curl.
  held --url URL --count N [--reads 0|1 | --read-first BYTES] [--no-sweep]
      Starts N requests at once, reads nothing (--reads 0, default), one chunk
      of each body (--reads 1) or BYTES of each at full speed (--read-first),
      waits 5 s so the 4 s sweep has run, and prints the resident memory each
      unread response holds and the receive windows of their streams. Over
      HTTP/1.1 (--http1.1, or an http:// URL) with nothing read, when node is
      on PATH, then runs Node's fetch on the same URL (bench/held_node_peer.mjs)
      and prints node_held_rss_mib_per_response and ratio_vs_node.
  many --url URL --requests N --concurrency C [--runs R]
      Fetches URL N times through one Client with C requests in flight at once
      (over h2: streams of one connection; over HTTP/1.1: C connections), R times
      (default 1). Prints the median requests/s and CPU per 1000 requests. When
      h2load is on PATH, runs it on the same URL interleaved with ours and prints
      its requests/s and ratio_vs_h2load.
  latency --url URL [--requests N]
      Sends N small GETs (default 1000) one after another on one Client, each
      body read whole before the next request, so all reuse one connection;
      prints the p50, p99 and mean time per request after the first (which
      connects). Peers: curl fetching the same N URLs in one command
      (ratio_p50_vs_curl, ours/curl: lower is better) and, over h2, h2load -c1
      -m1 -n N (ratio_mean_vs_h2load). Over HTTP/3 sluice figures only.
  upload-burst [--count N] [--size BYTES] [--url URL]
      Starts N uploads (PUT) of owned bodies of BYTES each at once (default 300
      of 1 MiB) to a server that reads slowly (one on loopback, unless --url),
      once with the release rule and once without it, each in a child process,
      and prints both peak resident sizes and their ratio.
  append-growth [--size BYTES]
      Writes BYTES (default 64 MiB) then one byte to a BodyWriter nothing drains,
      and the same to a std::vector, each in a child process; prints each peak's
      growth over the payload and how long the one-byte write took.
  download --url URL [--split N] [--runs R] [--dir DIR] [--mirror URL]...
      Downloads URL into a file in a scratch directory under DIR with
      sluice::download() in N ranges (default 1), R times (default 3), each
      run in a child process; interleaved with `curl -o`, `wget -O` and
      `aria2c -x N -s N` (those on PATH) on the same URL. Every file must have
      the same size; each is deleted after its run. Prints the median MiB/s,
      peak resident MiB and CPU per GiB of each, and ratio_vs_PEER. With
      --mirror (the same file elsewhere, e.g. a slow copy), sluice and aria2c
      get every URL, curl and wget sit out, and sluice_nosteal (ranges that
      never take work from each other) shows what work stealing gains.
  resumption --url https://URL [--split N] [--runs R] [--dir DIR]
      A segmented download (sluice::download(), as `sluice --split N`) of URL
      in N ranges (default 8), R times (default 5) with TLS session resumption
      and R times without (--no-sessionid), interleaved, each in a child
      process: the time and the process CPU until every range's response had
      begun, the handshakes counted, and the ratios; then `aria2c -x N -s N`.
  link --url URL --rtt MS [--link-mbit N] [--http3 | --http3-only]
      Starts the delay links of --rtt to URL's port, prints link_url (the URL
      through them) and keeps them up until SIGINT or SIGTERM: for running any
      client by hand on the benchmarks' path (sluice -v, curl, gtlsclient).
  help
      This text.

options:
  --url URL        the URL to download (http or https); upload-burst: where to
                   PUT (optional)
  --runs N         throughput, many, download, resumption: runs per contender
                   (1..1000; default 3, many 1, resumption 5)
  --split N        download, resumption: byte ranges fetched at once (1..16;
                   default 1, resumption 8);
                   aria2c gets -x N -s N
  --mirror URL     download: another URL of the same file (repeatable)
  --dir DIR        download, resumption: where the scratch directory goes
                   (default $TMPDIR or /tmp); use a disk, not a tmpfs, for a
                   1 GiB file
  --count N        held: responses held at once; also the connection limit;
                   upload-burst: bodies (default 300)
  --size BYTES     upload-burst: bytes each (default 1M);
                   append-growth: the payload (default 64M); K/M suffix
  --no-sweep       held: turn the library's sweep off (to see what it saves)
  --copy           throughput: read with BodyReader::read into a buffer, not
                   BodyReader::next in place
  --reads 0|1      held: read nothing, or one chunk of each body, before holding
  --requests N     many: requests in all; latency: requests one after another
                   (2..1000000, default 1000)
  --concurrency C  many: requests in flight at once
  --read-first BYTES
                   held: read each body at full speed for BYTES (or to its
                   end), then hold it; K/M suffix
  --initial-allowance BYTES
                   Request::allowance.initial_bytes: what an unread response holds
                   (default: the library's, 64K; K/M suffix)
  --max-allowance BYTES
                   Request::allowance.max_bytes: the most it grows to while the
                   reader keeps up (default: the library's, 32M; K/M suffix)
  --rtt MS         throughput, held, many, download: run every transfer, ours
                   and the peers', through a delay link (a proxy process on
                   127.0.0.1) with this round-trip time (milliseconds,
                   fractions allowed; 0: the link without delay); with
                   --http3 or --http3-only a UDP link too
  --link-mbit N    with --rtt: cap the link at N Mbit/s per direction (default
                   0: unlimited)
  --http1.1        HTTP/1.1 only (curl gets --http1.1 too)
  --http2          HTTP/2 where TLS ALPN agrees (curl gets --http2 too)
  --http2-prior-knowledge
                   HTTP/2 at once, also h2c over http:// (curl gets it too)
  --http3, --http3-only
                   HTTP/3 (throughput: the peer is gtlsclient, and an HTTP/2 run
                   of sluice on the same URL is interleaved for comparison)
  --cacert FILE    trust this PEM bundle (curl gets --cacert FILE too; download:
                   wget and aria2c get --ca-certificate=FILE)
  -k, --insecure   skip certificate verification (curl gets -k too; download:
                   wget --no-check-certificate, aria2c --check-certificate=false)
  --compressed     ask for and decode gzip/br/zstd (curl gets --compressed too)

exit status: 0 done, 1 a download, upload or write failed or runs disagreed,
2 bad options.
)";
}

}  // namespace sluice::bench
