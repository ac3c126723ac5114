#!/bin/sh
# Builds the example's image with no daemon, from Debian packages, as an OCI image layout:
#   sh examples/swe-bench-shaped/build-image.sh LAYOUT [TAG]     (TAG defaults to textkit)
# Python 3.11 (python3.11-minimal, its standard library and the C libraries they need), busybox-static as
# /bin/sh and its applets, and the repository in repo/ at /testbed, as a SWE-bench instance image has it.
# Needs apt-get (with its package lists: apt-get update), dpkg-deb, umoci and busybox (apt-get install
# umoci busybox-static). Nothing is installed on this machine: the packages are downloaded and unpacked.
set -eu
layout=${1:?usage: build-image.sh LAYOUT [TAG]}
tag=${2:-textkit}
here=$(cd "$(dirname "$0")" && pwd)
packages="libc6 zlib1g libexpat1 python3.11-minimal libpython3.11-minimal libpython3.11-stdlib"
for tool in apt-get dpkg-deb umoci busybox; do
  command -v "$tool" >/dev/null 2>&1 || { echo "build-image.sh: $tool is not installed (apt-get install umoci busybox-static)" >&2; exit 2; }
done
busybox=$(command -v busybox)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/debs"
# apt-get download writes into the current directory; as root it warns that _apt cannot reach it (harmless).
(cd "$work/debs" && apt-get download -q $packages 1>&2) || {
  echo "build-image.sh: apt-get download $packages failed (run apt-get update?)" >&2
  exit 1
}
[ -f "$layout/index.json" ] || umoci init --layout "$layout"
umoci new --image "$layout:$tag"
umoci unpack --rootless --image "$layout:$tag" "$work/bundle" >/dev/null
rootfs="$work/bundle/rootfs"
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$rootfs"; done
mkdir -p "$rootfs/bin" "$rootfs/tmp" "$rootfs/root" "$rootfs/workspace"
cp "$busybox" "$rootfs/bin/busybox"
for applet in $("$busybox" --list); do
  [ -e "$rootfs/bin/$applet" ] || [ -e "$rootfs/usr/bin/$applet" ] || ln -s busybox "$rootfs/bin/$applet"
done
ln -sf python3.11 "$rootfs/usr/bin/python3"
cp -R "$here/repo" "$rootfs/testbed"
umoci repack --image "$layout:$tag" "$work/bundle"
umoci config --image "$layout:$tag" --config.workingdir /testbed \
  --config.env PATH=/usr/local/bin:/usr/bin:/bin --config.env HOME=/root --config.env PYTHONDONTWRITEBYTECODE=1
echo "built $layout:$tag"
