#!/bin/bash
# Scale benchmark (make bench-scale; BENCHMARKS.md "A million sentences"):
# indexes of about 10k, 100k and 1M sentences of this machine's manual
# pages and package documentation, each built, then asked one process per
# question per ranker (warm and cold page cache) and loaded through serve.
#
#   scale_bench.sh DIR corpus    copy the corpora into DIR/{10k,100k,1m}
#   scale_bench.sh DIR build     index each (DIR/SIZE.reqa; build.log)
#   scale_bench.sh DIR measure   ask and serve (measure.log, table.md)
#
# The corpora: every file of /usr/share/man/man1..man8 in name order, then
# the .html, .md, .txt and .rst files of /usr/share/doc in name order
# (symbolic links followed); 10k is the first 110 manual pages, 100k the
# first 2,600, 1m every manual page and the first 742 documents. Their
# sentence counts are whatever this machine's pages hold (build.log).
# Needs root for the cold runs (drop_caches) and wrk (make bench-serve
# installs it). REQA (default bin/reqa) is the binary measured.
set -euo pipefail
dir=$1
stage=$2
reqa=${REQA:-bin/reqa}
sizes=${SIZES:-10k 100k 1m}
mkdir -p "$dir"

copy() { # copy LIST ROOT DEST: the files named in LIST (relative to ROOT) into DEST, flattened
	while read -r f; do cp -L "$2/$f" "$3/$(echo "${f#./}" | tr / _)" 2>/dev/null || true; done <"$1"
}

# resident PID: the process's resident set, and how much of it is its own
# (anonymous) and how much the index file's pages mapped from the page cache.
resident() {
	awk '/^Rss:/{r=$2} /^Anonymous:/{a=$2} END{printf "%d KB (anonymous %d KB, file pages %d KB)", r, a, r-a}' /proc/$1/smaps_rollup
}

case $stage in
corpus)
	(cd /usr/share/man && for s in 1 2 3 4 5 6 7 8; do ls "man$s" | sort | sed "s#^#man$s/#"; done) >"$dir/man.list"
	(cd /usr/share/doc && find -L . -type f \( -name '*.html' -o -name '*.md' -o -name '*.txt' -o -name '*.rst' \) | LC_ALL=C sort) >"$dir/doc.list"
	for s in $sizes; do
		rm -rf "${dir:?}/$s" && mkdir -p "$dir/$s"
		case $s in
		10k) head -110 "$dir/man.list" >"$dir/$s.man" && : >"$dir/$s.doc" ;;
		100k) head -2600 "$dir/man.list" >"$dir/$s.man" && : >"$dir/$s.doc" ;;
		1m) cp "$dir/man.list" "$dir/$s.man" && head -742 "$dir/doc.list" >"$dir/$s.doc" ;;
		esac
		copy "$dir/$s.man" /usr/share/man "$dir/$s"
		copy "$dir/$s.doc" /usr/share/doc "$dir/$s"
		echo "$s: $(ls "$dir/$s" | wc -l) files, $(du -sh "$dir/$s" | cut -f1)"
	done
	;;
build)
	for s in $sizes; do
		echo "== $s ($(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg))"
		/usr/bin/time -f "$s build: %e s wall, %U+%S s CPU, %M KB peak RSS" \
			$reqa index -q --memory-limit off --out "$dir/$s.reqa" "$dir/$s" 2>&1 | grep -v '^reqa: warning' || true
		ls -l "$dir/$s.reqa"
	done 2>&1 | tee -a "$dir/build.log"
	;;
measure)
	q="how do I follow a file as it grows"
	{
		echo "== measure ($(date -u +%FT%TZ), $(nproc) CPUs, reqa $($reqa version 2>/dev/null | sed -n "s/^commit *//p"))"
		for s in $sizes; do
			idx="$dir/$s.reqa"
			echo "== $s: $(stat -c %s "$idx") bytes"
			# Cold: the page cache dropped before each run. Warm: the
			# pages the asks read, cached by the asks themselves (not by
			# reading the file through: on kernels with large page-cache
			# folios a sequential read makes every fault map a whole
			# folio, several times the resident memory; BENCHMARKS.md).
			for r in bm25-wpm dense default; do
				for mode in cold warm; do
					runs=9
					[ $mode = cold ] && runs=3
					for i in $(seq $runs); do
						[ $mode = cold ] && sync && echo 3 >/proc/sys/vm/drop_caches
						t0=$(date +%s%N)
						kb=$(/usr/bin/time -f "%M" $reqa ask -k 1 -i "$idx" -r $r "$q" 2>&1 >/dev/null | tail -1)
						echo "ask $s $r $mode $((($(date +%s%N) - t0) / 1000000)) ms $kb KB"
					done
				done
			done
			$reqa serve --index "$idx" --addr 127.0.0.1:18081 2>/dev/null &
			pid=$!
			for _ in $(seq 60); do curl -s -o /dev/null "http://127.0.0.1:18081/v1/ask?q=x&k=1" && break; sleep 0.5; done
			echo "serve $s resident after start: $(resident $pid)"
			for r in bm25-wpm dense default; do
				echo "serve $s $r:"
				wrk -t1 -c1 -d10s --latency -s cmd/reqa/testdata/wrk-questions.lua http://127.0.0.1:18081 -- $r |
					grep -E 'Requests/sec|^ +(50|99)%|Non-2xx' | sed 's/^/  1 client /'
				wrk -t2 -c4 -d10s --latency -s cmd/reqa/testdata/wrk-questions.lua http://127.0.0.1:18081 -- $r |
					grep -E 'Requests/sec|^ +(50|99)%|Non-2xx' | sed 's/^/  4 clients /'
			done
			echo "serve $s resident after load: $(resident $pid)"
			kill $pid
			wait $pid 2>/dev/null || true
		done
	} 2>&1 | tee "$dir/measure.log"
	;;
*)
	echo "usage: scale_bench.sh DIR corpus|build|measure" >&2
	exit 2
	;;
esac
