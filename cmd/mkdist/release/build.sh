#!/bin/sh
# release/build.sh ROOT GOARCH OUT LDFLAGS — builds ./cmd/reqa for linux/GOARCH
# inside the Debian root ROOT (made by `make dist-root`), with its gcc (amd64)
# or gcc-aarch64-linux-gnu (arm64) and its glibc 2.31 headers and libraries,
# so the binary asks for no glibc symbol version newer than 2.31's.
#
# The host's Go toolchain, module cache and build cache and this worktree are
# bind-mounted into ROOT in a private mount namespace (unshare -m): the
# mounts vanish with the build, and nothing is fetched (GOPROXY=off,
# -mod=readonly). OUT is relative to the worktree. DIST_GOCACHE, when set,
# names another build cache (an empty one: everything compiled afresh).
# Needs root.
set -eu
root=$(cd "$1" && pwd); arch=$2; out=$3; ldflags=$4
case $arch in
  amd64) cc=gcc;;
  arm64) cc=aarch64-linux-gnu-gcc;;
  *) echo "build.sh: unsupported GOARCH $arch" >&2; exit 2;;
esac
src=$(pwd)
goroot=$(go env GOROOT); gocache=${DIST_GOCACHE:-$(go env GOCACHE)}; gomodcache=$(go env GOMODCACHE)
mkdir -p "$gocache"
export root arch out ldflags cc src goroot gocache gomodcache
exec unshare -m --propagation private sh -euc '
  for d in /usr/local/go /src /gocache /gomod /proc; do mkdir -p "$root$d"; done
  mount --bind -o ro "$goroot" "$root/usr/local/go"
  mount --bind "$src" "$root/src"
  mount --bind "$gocache" "$root/gocache"
  mount --bind -o ro "$gomodcache" "$root/gomod"
  mount -t proc proc "$root/proc"
  chroot "$root" /usr/bin/env -i PATH=/usr/local/go/bin:/usr/bin:/bin HOME=/tmp TMPDIR=/tmp \
    GOROOT=/usr/local/go GOCACHE=/gocache GOMODCACHE=/gomod GOPROXY=off GOTOOLCHAIN=local \
    GOFLAGS="-buildvcs=false -mod=readonly" CGO_ENABLED=1 GOOS=linux GOARCH="$arch" CC="$cc" \
    sh -euc "cd /src && go build -trimpath -ldflags \"\$1\" -o \"\$2\" ./cmd/reqa" build "$ldflags" "$out"
'
