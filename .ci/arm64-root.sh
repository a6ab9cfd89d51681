#!/usr/bin/env bash
# Unpacks Debian's arm64 C runtime and Node into a directory, the root qemu-aarch64 -L runs arm64 programs against.
# Installs qemu-user first when it is missing.
#
# Usage: .ci/arm64-root.sh DIR
# Why unpacked rather than installed: Debian's nodejs:arm64 cannot sit beside the host's nodejs (one package
# name, not co-installable), and the host's packages stay as they are. Needs a Debian or Ubuntu host (apt-get,
# dpkg-deb) and root for `dpkg --add-architecture` the first time.
set -euo pipefail

root=${1:?usage: arm64-root.sh DIR}
# The emulator the arm64 programs run under.
if ! command -v qemu-aarch64 >/dev/null; then apt-get install -y -qq --no-install-recommends qemu-user; fi
if [ -x "$root/usr/bin/node" ] && [ -e "$root/lib/ld-linux-aarch64.so.1" ]; then exit 0; fi

# nodejs:arm64 and what it links or loads at run time (arch-independent node-* modules Debian's Node imports).
PACKAGES=(
  libc6:arm64 libgcc-s1:arm64 libstdc++6:arm64 zlib1g:arm64 libssl3:arm64 libicu72:arm64 libuv1:arm64
  libbrotli1:arm64 libc-ares2:arm64 libnghttp2-14:arm64 libnode108:arm64 nodejs:arm64
  node-acorn node-cjs-module-lexer node-undici node-busboy node-xtend
)

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64
  apt-get update -qq
fi
debs=$(mktemp -d)
trap 'rm -rf "$debs"' EXIT
# As root into a private temp dir: apt's download user could not write there.
(cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "${PACKAGES[@]}")
mkdir -p "$root"
for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done
# Debian's usr-merge: the loader's /lib path is a link into /usr/lib on an installed system.
for dir in lib bin; do
  if [ -d "$root/$dir" ] && [ ! -L "$root/$dir" ]; then cp -a "$root/$dir/." "$root/usr/$dir/" && rm -rf "${root:?}/$dir"; fi
  [ -e "$root/$dir" ] || ln -s "usr/$dir" "$root/$dir"
done
