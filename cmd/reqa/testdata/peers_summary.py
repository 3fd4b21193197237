#!/usr/bin/python3
"""Summarise `make bench-peers`: reqa beside Xapian, hnswlib and TF.js.

    /usr/bin/python3 cmd/reqa/testdata/peers_summary.py LOG EVAL_JSON [--target 0.98]

LOG is the whole output of the run (Go benchmark lines and the peers'
PEER-RESULT lines); EVAL_JSON is `reqa eval --json` on the same SQuAD set.
Prints one table per peer with the ratio reqa ÷ peer for every figure (for
times, a ratio below 1 means reqa is faster; for rates and P@1, above 1
means reqa is ahead).
"""

import argparse
import json
import re
import sys


def bench_metrics(log, name_re):
    """Metrics of the Go benchmark lines whose name matches name_re."""
    out = {}
    for line in log.splitlines():
        f = line.split()
        if not f or not re.fullmatch(name_re, f[0]):
            continue
        m = {}
        for i in range(2, len(f) - 1, 2):
            try:
                m[f[i + 1]] = float(f[i])
            except ValueError:
                pass
        out[f[0]] = m
    return out


def peer(log, name):
    for line in log.splitlines():
        if line.startswith("PEER-RESULT "):
            r = json.loads(line[len("PEER-RESULT "):])
            if r.get("peer") == name:
                return r
    return None


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def fmt(x, nd=1):
    return "n/a" if x is None else f"{x:,.{nd}f}"


def table(title, rows):
    print(f"\n{title}")
    print(f"  {'':38} {'reqa':>12} {'peer':>12} {'reqa/peer':>10}")
    for label, a, b, nd in rows:
        print(f"  {label:38} {fmt(a, nd):>12} {fmt(b, nd):>12} {ratio(a, b):>10}")


def at_recall(rows, target):
    """The first row (rows sorted by ef) reaching recall target."""
    for r in rows:
        if r["recall"] >= target:
            return r
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("eval_json")
    ap.add_argument("--target", type=float, default=0.98)
    args = ap.parse_args()
    log = open(args.log, encoding="utf-8", errors="replace").read()
    ev = json.load(open(args.eval_json))
    p1 = {r["ranker"]: r["p_at_1"] for r in ev["results"]}
    ok = True

    # BM25: reqa vs Xapian.
    x = peer(log, "xapian")
    build = bench_metrics(log, r"BenchmarkSQuADBuild(-\d+)?")
    query = bench_metrics(log, r"BenchmarkSQuADQuery/bm25-(wpm|word)(-\d+)?")
    if x and build and query:
        b = next(iter(build.values()))
        reqa_build = b.get("ns/op", 0) / 1e9
        xw = x["weightings"]
        for rk in ("bm25-wpm", "bm25-word"):
            q = next(v for k, v in query.items() if f"/{rk}" in k)
            for wname, w in xw.items():
                table(f"BM25 on SQuAD (10,642 candidates, sentence+context): reqa {rk} vs Xapian {x['version']} {wname}", [
                    ("index build, s (wall)", reqa_build, x["build_s"], 2),
                    ("top-10 query p50, µs", q.get("p50-µs"), w["p50_us"], 1),
                    ("top-10 query p99, µs", q.get("p99-µs"), w["p99_us"], 1),
                    ("P@1, all 10,570 questions", p1.get(rk), w["p_at_1"], 2),
                ])
        print("  (reqa's build makes both tokenizations and both document forms; Xapian's is one form, fsynced)")
    else:
        ok = False
        print("BM25 vs Xapian: missing results", file=sys.stderr)

    # Graph: reqa's index/ann vs hnswlib on the SQuAD answer vectors.
    h = peer(log, "hnswlib")
    g = bench_metrics(log, r"BenchmarkHNSW/squad/.*")
    if h and g:
        grows = []
        for k, m in g.items():
            ef = int(re.search(r"ef=(\d+)", k).group(1))
            grows.append({"ef": ef, "recall": m.get("recall@10", 0), "p50_us": m.get("p50-µs"), "p99_us": m.get("p99-µs"),
                          "cpu_us": m.get("cpu-µs/op"), "build_s": m.get("build-s"), "build_cpu_s": m.get("build-cpu-s")})
        grows.sort(key=lambda r: r["ef"])
        hrows = sorted(h["rows"], key=lambda r: r["ef"])
        gr, hr = at_recall(grows, args.target), at_recall(hrows, args.target)
        print(f"\nHNSW on the SQuAD answer vectors (10,642 x 512, 2,000 question embeddings, M={h['M']} efC={h['efc']}, one thread)")
        print(f"  {'ef':>5} {'reqa recall':>12} {'reqa p50-µs':>12} {'hnswlib recall':>15} {'hnswlib p50-µs':>15}")
        hd = {r["ef"]: r for r in hrows}
        for r in grows:
            o = hd.get(r["ef"], {})
            print(f"  {r['ef']:>5} {r['recall']:>12.4f} {fmt(r['p50_us']):>12} {o.get('recall', 0):>15.4f} {fmt(o.get('p50_us')):>15}")
        table(f"HNSW at equal recall (the smallest ef reaching recall@10 >= {args.target}: "
              f"reqa ef={gr and gr['ef']}, hnswlib ef={hr and hr['ef']})", [
            ("build, s (wall)", grows[0]["build_s"], h["build_s"], 2),
            ("build, CPU s", grows[0]["build_cpu_s"], h["build_cpu_s"], 2),
            ("recall@10", gr and gr["recall"], hr and hr["recall"], 4),
            ("query p50, µs", gr and gr["p50_us"], hr and hr["p50_us"], 1),
            ("query p99, µs", gr and gr["p99_us"], hr and hr["p99_us"], 1),
            ("query CPU, µs", gr and gr["cpu_us"], hr and hr["cpu_us"], 1),
        ])
    else:
        ok = False
        print("graph vs hnswlib: missing results", file=sys.stderr)

    # Encoder: reqa's USE-Lite (ONNX Runtime, int8) vs the TF.js reference.
    t = peer(log, "tfjs")
    e = bench_metrics(log, r"BenchmarkEncodeSQuAD/int8(-\d+)?")
    if t and e:
        m = next(iter(e.values()))
        table(f"USE-Lite on SQuAD candidates: reqa (ONNX Runtime, int8) vs TF.js reference ({t['runtime']}, "
              f"batch {t['batch']}, {t['sentences']} sentences)", [
            ("sentences/s (wall)", m.get("sentences/s"), t["sentences_per_s"], 1),
            ("sentences per CPU-s", m.get("sentences/cpu-s"), t["sentences_per_cpu_s"], 1),
        ])
    else:
        ok = False
        print("encoder vs TF.js: missing results", file=sys.stderr)
    if "default" in " ".join(p1):
        print("\nreqa's default ranker on the same questions: " +
              ", ".join(f"{k} P@1 {v:.2f}" for k, v in p1.items() if k.startswith("default")))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
