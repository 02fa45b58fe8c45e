#!/usr/bin/env bash
# bench/plot_allowance.sh BENCH OUT_DIR: runs sluice-bench sweeps that show the
# allowance at work, each beside its peer in the same run, keeps their `name value`
# output in OUT_DIR/*.dat, and draws three pictures with gnuplot (Debian's
# gnuplot-nox) into OUT_DIR:
#   allowance-held.png        MiB held per unread response against the count held,
#                             sluice (h1) beside Node's fetch
#   allowance-throughput.png  1 GiB over h1 from nginx against the allowance's
#                             maximum (initial 64 KiB), beside curl
#   allowance-rtt.png         64 MiB over h2 through a delay link against its
#                             round-trip time, beside curl
# Needs the test servers' environment: `. DIR/test-env/env` after
# tests/support/servers/start.sh DIR, and a 1g.bin in $SLUICE_FILES_DIR.
set -euo pipefail

bench=${1:?usage: bench/plot_allowance.sh BENCH OUT_DIR}
out=${2:?usage: bench/plot_allowance.sh BENCH OUT_DIR}
: "${SLUICE_NGINX_HTTP_URL:?source the env file of the test servers first}"
command -v gnuplot >/dev/null || { echo "plot_allowance: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"

# figure NAME FILE: the value of `NAME value` in a benchmark's output.
figure() { awk -v name="$1" '$1 == name { print $2 }' "$2"; }

held_sweep() {
  local data=$out/held.dat
  echo "# count sluice_mib node_mib" > "$data"
  for count in 8 32 128; do
    "$bench" held --url "$SLUICE_NGINX_HTTP_URL/64m.bin" --count "$count" > "$out/held-$count.txt"
    echo "$count $(figure held_rss_mib_per_response "$out/held-$count.txt")" \
      "$(figure node_held_rss_mib_per_response "$out/held-$count.txt")" >> "$data"
  done
}

throughput_sweep() {
  local data=$out/throughput.dat
  echo "# max_allowance_kib sluice_mib_s curl_mib_s" > "$data"
  for max in 64K 256K 1M 4M 32M; do
    "$bench" throughput --url "$SLUICE_NGINX_HTTP_URL/1g.bin" --runs 3 \
      --initial-allowance 64K --max-allowance "$max" > "$out/throughput-$max.txt"
    local kib=${max%K}
    [ "$kib" != "$max" ] || kib=$(( ${max%M} * 1024 ))
    echo "$kib $(figure throughput_mib_s "$out/throughput-$max.txt")" \
      "$(figure curl_throughput_mib_s "$out/throughput-$max.txt")" >> "$data"
  done
}

rtt_sweep() {
  local data=$out/rtt.dat
  echo "# rtt_ms sluice_mib_s curl_mib_s" > "$data"
  for rtt in 0 10 25 50; do
    "$bench" throughput --url "$SLUICE_NGINX_H2_URL/64m.bin" --http2 --cacert "$SLUICE_TEST_CA" \
      --rtt "$rtt" --runs 3 > "$out/rtt-$rtt.txt"
    echo "$rtt $(figure throughput_mib_s "$out/rtt-$rtt.txt")" \
      "$(figure curl_throughput_mib_s "$out/rtt-$rtt.txt")" >> "$data"
  done
}

draw() {
  # The script is quoted (no shell expansion in it); the folder comes in as `out`.
  gnuplot -e "out='$out'" /dev/stdin <<'GNUPLOT'
set terminal pngcairo size 720,420 noenhanced
set key below
set grid
set output out.'/allowance-held.png'
set title 'Unread HTTP/1.1 responses from nginx: resident memory per response'
set xlabel 'responses held unread'
set ylabel 'MiB per response'
set logscale x 2
set yrange [0:*]
plot out.'/held.dat' using 1:2 with linespoints title 'sluice (64 KiB initial allowance)', out.'/held.dat' using 1:3 with linespoints title "Node's fetch (undici)"
set output out.'/allowance-throughput.png'
set title '1 GiB over HTTP/1.1 from nginx (loopback), by the allowance maximum'
set xlabel 'Request::allowance.max_bytes (KiB)'
set ylabel 'MiB/s (median of 3)'
plot out.'/throughput.dat' using 1:2 with linespoints title 'sluice', out.'/throughput.dat' using 1:3 with linespoints title 'curl'
unset logscale x
set output out.'/allowance-rtt.png'
set title '64 MiB over HTTP/2 from nginx through a delay link'
set xlabel 'round-trip time (ms)'
set ylabel 'MiB/s (median of 3)'
plot out.'/rtt.dat' using 1:2 with linespoints title 'sluice', out.'/rtt.dat' using 1:3 with linespoints title 'curl'
GNUPLOT
}

if [ "${DRAW_ONLY:-0}" != 1 ]; then  # DRAW_ONLY=1: redraw from the .dat files kept
  held_sweep
  throughput_sweep
  rtt_sweep
fi
draw
echo "plot_allowance: pictures in $out"
