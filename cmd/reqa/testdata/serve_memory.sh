#!/bin/bash
# serve_memory.sh IDX LABEL:BIN[:FLAGS] ...: for each binary in turn, start
# `serve` on IDX, ask one question, load it with wrk (one client, then four,
# D seconds each, dense then the default fusion) and print latency and the
# resident set (VmRSS) after start and after the load. WRK_LUA is the wrk
# script (default wrk-questions.lua; wrk_many_questions.py writes one of
# 1,039 questions). BENCHMARKS.md "serve's memory bounded".
set -u
idx=$1
shift
lua=${WRK_LUA:-$(dirname "$0")/wrk-questions.lua}
port=${PORT:-18097}
resident() { awk '/^VmRSS/{printf "%d MB", $2/1024}' "/proc/$1/status"; }
load() { # load CLIENTS RANKER
	wrk -t$(($1 < 2 ? 1 : 2)) -c"$1" -d"${D:-8}"s --latency -s "$lua" "http://127.0.0.1:$port" -- "$2" |
		awk -v c="$1" '/^ +50%/{p50=$2} /^ +99%/{p99=$2} /Requests\/sec/{rps=$2} END{printf "%dc p50 %s p99 %s %s/s", c, p50, p99, rps}'
}
for spec in "$@"; do
	IFS=: read -r label bin flags <<<"$spec"
	# shellcheck disable=SC2086
	$bin serve --index "$idx" --addr 127.0.0.1:$port $flags 2>/dev/null &
	pid=$!
	for _ in $(seq 240); do curl -s -o /dev/null "http://127.0.0.1:$port/v1/ask?q=x&k=1" && break; sleep 0.5; done
	echo "$label start $(resident $pid)"
	for r in dense default; do
		echo "$label $r: $(load 1 $r) | $(load 4 $r)"
	done
	echo "$label after load $(resident $pid)"
	kill $pid
	wait $pid 2>/dev/null
done
