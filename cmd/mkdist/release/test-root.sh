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
  mkdir -p "$root/proc" "$root/sys" "$root/opt" "$root/tmp"
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys"
  mount -t tmpfs tmpfs "$root/opt"
  tar -xzf "$archive" -C "$root/opt"
  run() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp TMPDIR=/tmp chroot "$root" $qemu "/opt/$name/reqa" "$@"; }
  if [ -n "$qemu" ]; then cp "$(command -v "$qemu")" "$root/opt/qemu"; qemu=/opt/qemu; fi
  echo "== $name in $(cat "$root/etc/debian_version") (glibc $(ls "$root"/lib/*-linux-gnu/libc-*.so | sed "s/.*libc-//; s/\.so//")), no network"
  run version
  run version --json | grep -q "\"onnxruntime\": \"1.24.1\""
  echo "== demo"; run demo -k 1 | cut -c1-200
  rm -rf "$root/tmp/t" && mkdir -p "$root/tmp/t"
  cat > "$root/tmp/t/notes.md" <<EON
# Carrying reqa

## Checking

Run sha256sum -c SHA256SUMS beside the archives to check that they arrived intact.
Each archive holds the binary, its licenses and a CycloneDX SBOM.

## Running

The binary needs no network and writes nothing outside the index it builds.
It runs on glibc 2.27 and later, on amd64 and arm64.
EON
  # Under qemu-user without binfmt_misc the binary cannot start its parser
  # worker processes (a child exec of an arm64 binary is "exec format
  # error"): parse in process there. The amd64 root runs the workers.
  parse=; if [ -n "$qemu" ]; then parse=--parse-in-process; fi
  echo "== index"; run index -q $parse --out /tmp/t/notes.reqa /tmp/t/notes.md
  echo "== ask"; run ask -k 1 -i /tmp/t/notes.reqa "How do I check that the archives arrived intact?" > "$root/tmp/t/ask.txt"
  cat "$root/tmp/t/ask.txt"; grep -q "sha256sum -c SHA256SUMS" "$root/tmp/t/ask.txt"
  echo "== verify"; run verify /tmp/t/notes.reqa
  echo "== serve"
  run serve --index /tmp/t/notes.reqa --addr 127.0.0.1:18931 > "$root/tmp/t/serve.log" 2>&1 &
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
