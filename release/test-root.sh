#!/bin/sh
# release/test-root.sh ROOT ARCHIVE [QEMU] — unpacks the release ARCHIVE into
# the Debian root ROOT and runs reqa there, with no network: version,
# demo, index, ask, verify, serve + GET /healthz, and the completion helper.
# QEMU, when given (qemu-aarch64-static), runs an arm64 binary on this host;
# it is called directly (no binfmt_misc registration, which would change the
# shared kernel's state), so ROOT needs only its libraries: a first-stage
# (`debootstrap --foreign`) root will do.
#
# It runs in private mount and network namespaces (unshare -m -n): the
# network namespace holds only a loopback interface (brought up for serve),
# and the check below fails if anything else is reachable. Needs root.
set -eu
root=$(cd "$1" && pwd); archive=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); qemu=${3:-}
name=$(basename "$archive" .tar.gz)
export root archive qemu name
exec unshare -m -n --propagation private sh -euc '
  ip link set lo up
  if ip route get 1.1.1.1 >/dev/null 2>&1; then echo "test-root: the network is reachable" >&2; exit 1; fi
  mkdir -p "$root/proc" "$root/opt" "$root/tmp"
  mount -t proc proc "$root/proc"
  mount -t tmpfs tmpfs "$root/opt"
  tar -xzf "$archive" -C "$root/opt"
  run() { chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp TMPDIR=/tmp $qemu "/opt/$name/reqa" "$@"; }
  if [ -n "$qemu" ]; then cp "$(command -v "$qemu")" "$root/opt/qemu"; qemu=/opt/qemu; fi
  echo "== $name in $(cat "$root/etc/debian_version") (glibc $(ls "$root"/lib/*-linux-gnu/libc-*.so | sed "s/.*libc-//; s/\.so//")), no network"
  run version
  run version --json | grep -q "\"onnxruntime\": \"1.24.1\""
  echo "== demo"; run demo
  rm -rf "$root/tmp/t" && mkdir -p "$root/tmp/t"
  echo "== index"; run index -q --out /tmp/t/readme.reqa "/opt/$name/README.md"
  echo "== ask"; run ask -i /tmp/t/readme.reqa "How do I check that the archive arrived intact?"
  echo "== verify"; run verify /tmp/t/readme.reqa
  echo "== serve"
  run serve --index /tmp/t/readme.reqa --addr 127.0.0.1:18931 > "$root/tmp/t/serve.log" 2>&1 &
  pid=$!
  ok=
  for i in $(seq 1 120); do
    if curl -fsS --max-time 5 http://127.0.0.1:18931/healthz > "$root/tmp/t/healthz" 2>/dev/null; then ok=1; break; fi
    sleep 1
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true
  if [ -z "$ok" ]; then echo "test-root: /healthz did not answer"; cat "$root/tmp/t/serve.log"; exit 1; fi
  echo "GET /healthz: $(cat "$root/tmp/t/healthz")"
  echo "== completion"
  run ask - --generate-bash-completion | grep -qx -- --index
  run --generate-bash-completion | grep -qx serve
  echo "== $name: all passed"
'
