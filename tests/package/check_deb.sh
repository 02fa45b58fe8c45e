#!/usr/bin/env bash
# ctest package.deb: makes the Debian package of BUILD_DIR with CPack and uses it as
# an installed tool is used. The package is unpacked with dpkg-deb -x into a scratch
# root (installing it for real would change the machine the tests run on); its
# Depends are checked against what dpkg has installed, which is what `dpkg -i` checks.
# Then, from the unpacked root:
#   - the files a user expects are there (command, library, headers, sluice.pc, man
#     page, bash and zsh completions), and Depends names the runtime libraries;
#   - `sluice --version` runs and `sluice` fetches a file from the fixture's nginx;
#   - examples/c_fetch/main.c builds with `pkg-config --cflags --libs sluice` against
#     the root's libsluice.so and fetches the same file.
# Usage: check_deb.sh BUILD_DIR SOURCE_DIR CPACK C_COMPILER
# (SLUICE_TEST_ENV_FILE: the real_servers fixture's env.)
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 BUILD_DIR SOURCE_DIR CPACK C_COMPILER" >&2; exit 2; }
build=$1 source=$2 cpack=$3 cc=$4
work=$build/package-test
fail() { echo "package.deb: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/root"
echo "==> cpack -G DEB in $build"
(cd "$build" && "$cpack" -G DEB -B "$work" > "$work/cpack.log" 2>&1) \
  || { cat "$work/cpack.log" >&2; fail "cpack failed (log above)"; }
debs=("$work"/sluice_*.deb)
[ -f "${debs[0]}" ] || fail "cpack made no sluice_*.deb in $work"
deb=${debs[0]}
echo "==> $(basename "$deb"): $(du -k "$deb" | cut -f1) KiB"

dpkg-deb -c "$deb" | awk '{print $NF}' > "$work/contents"
for path in ./usr/bin/sluice ./usr/include/sluice/sluice.h ./usr/include/sluice/client.hpp \
    ./usr/lib/pkgconfig/sluice.pc ./usr/share/man/man1/sluice.1 \
    ./usr/share/bash-completion/completions/sluice ./usr/share/zsh/vendor-completions/_sluice; do
  grep -qxF "$path" "$work/contents" || fail "the package has no $path"
done
grep -qE '^\./usr/lib/libsluice\.so\.[0-9]' "$work/contents" || fail "the package has no libsluice.so"

# Depends from dpkg-shlibdeps: the runtime libraries, each installed here (so
# `dpkg -i` would accept the package on this machine).
depends=$(dpkg-deb -f "$deb" Depends)
echo "==> Depends: $depends"
for package in libc6 libstdc++6 libssl3 libgnutls30 libnghttp2 libngtcp2 libnghttp3 \
    libc-ares2 libpsl5 libidn2 libbrotli1 libzstd1 zlib1g; do
  grep -q "$package" <<<"$depends" || fail "Depends does not name $package"
done
tr ',' '\n' <<<"$depends" | sed -E 's/^ *//; s/[ (|].*//' | while read -r package; do
  [ "$(dpkg-query -W -f '${Status}' "$package" 2>/dev/null)" = "install ok installed" ] \
    || fail "Depends names $package, which is not installed here"
done

dpkg-deb -x "$deb" "$work/root"
root=$work/root
"$root/usr/bin/sluice" --version > "$work/version"
head -n 1 "$work/version" | grep -q '^sluice .* libsluice/' \
  || fail "the installed sluice --version says: $(head -n 1 "$work/version")"
echo "==> $(head -n 1 "$work/version")"

# shellcheck disable=SC1090
. "${SLUICE_TEST_ENV_FILE:?run with the real_servers fixture}"
url=$SLUICE_NGINX_HTTP_URL/1m.bin
want=$(sha256sum < "$SLUICE_FILES_DIR/1m.bin" | cut -d' ' -f1)
check_download() {
  local what=$1 file=$2 got
  got=$(sha256sum < "$file" | cut -d' ' -f1)
  [ "$got" = "$want" ] || fail "$what fetched $url wrong (sha256 $got, expected $want)"
  echo "==> $what fetched $url intact"
}
XDG_CONFIG_HOME=$work "$root/usr/bin/sluice" -sS -o "$work/by-sluice" "$url"
check_download "the installed sluice" "$work/by-sluice"

export PKG_CONFIG_PATH=$root/usr/lib/pkgconfig
read -r -a flags <<<"$(pkg-config --cflags --libs sluice)"
"$cc" -std=c99 -Wall -Werror -o "$work/c_fetch" "$source/examples/c_fetch/main.c" "${flags[@]}"
ldd_out=$(LD_LIBRARY_PATH=$root/usr/lib ldd "$work/c_fetch")
grep -qF "$root/usr/lib/libsluice.so" <<<"$ldd_out" \
  || fail "c_fetch does not load the package's libsluice.so: $ldd_out"
LD_LIBRARY_PATH=$root/usr/lib "$work/c_fetch" "$url" > "$work/by-c-fetch" 2>/dev/null
check_download "a C program built with pkg-config against the package" "$work/by-c-fetch"
rm -rf "$work"
