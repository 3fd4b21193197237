#!/usr/bin/python3
"""Benchmark Xapian's BM25 on the SQuAD MultiReQA set, as reqa's BM25 is.

    apt-get install -y python3-xapian python3-numpy   # Debian's, pinned by `make bench-peers`
    /usr/bin/python3 index/bm25/testdata/xapian_bench.py ../shared/data/squad-multireqa-test

One Xapian document per candidate sentence, its text followed by its
paragraph's text (reqa's default document form, "sentence+context"; --form
sent indexes the sentence alone), terms from Xapian's TermGenerator with the
English stemmer (STEM_SOME, Xapian's usual setup), written to an on-disk
database in a temporary directory and committed: that is the build time.
Questions go through QueryParser (same stemmer, default operator OR) and
get_mset(0, 10): the top-10 query latency, in-process (one question per
call, after one warm pass), and P@1 over every question (a question is
answered at rank 1 when the first document is one of its gold sentences,
as reqa eval counts it). Two weightings: Xapian's BM25Weight defaults
(k1=1, k2=0, k3=1, b=0.5, min_normlen=0.5) and gensim-like parameters
(k1=1.5, b=0.75, k2=0, k3=1, min_normlen=0: the parameters of reqa's
default BM25; the IDF formulas still differ).

Prints one line per weighting, and a last line PEER-RESULT {json} for
`make bench-peers`.
"""

import argparse
import gzip
import json
import os
import shutil
import sys
import tempfile
import time

try:
    import xapian
except ImportError:
    sys.exit("xapian not importable: apt-get install -y python3-xapian, run with /usr/bin/python3")


def read_jsonl(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="the SQuAD MultiReQA directory (candidates/contexts/questions.jsonl.gz)")
    ap.add_argument("--form", choices=["sent+ctx", "sent"], default="sent+ctx")
    ap.add_argument("--latency-questions", type=int, default=2000)
    args = ap.parse_args()

    contexts = {c["context_id"]: c["text"] for c in read_jsonl(os.path.join(args.dir, "contexts.jsonl.gz"))}
    cands = list(read_jsonl(os.path.join(args.dir, "candidates.jsonl.gz")))
    questions = list(read_jsonl(os.path.join(args.dir, "questions.jsonl.gz")))
    print(f"xapian {xapian.version_string()}, {len(cands)} candidates, {len(questions)} questions, form {args.form}")

    tmp = tempfile.mkdtemp(prefix="xapian-squad-")
    try:
        stem = xapian.Stem("english")
        t0, c0 = time.perf_counter(), time.process_time()
        db = xapian.WritableDatabase(os.path.join(tmp, "db"), xapian.DB_CREATE_OR_OVERWRITE)
        tg = xapian.TermGenerator()
        tg.set_stemmer(stem)
        ids = []
        for c in cands:
            doc = xapian.Document()
            tg.set_document(doc)
            tg.index_text(c["text"])
            if args.form == "sent+ctx":
                tg.increase_termpos()
                tg.index_text(contexts[c["context_id"]])
            db.add_document(doc)
            ids.append(c["candidate_id"])
        db.commit()
        build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
        db.close()
        print(f"build {build:.2f} s wall, {build_cpu:.2f} s cpu")

        db = xapian.Database(os.path.join(tmp, "db"))
        qp = xapian.QueryParser()
        qp.set_stemmer(stem)
        qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
        qp.set_database(db)
        weights = [("xapian-default", xapian.BM25Weight()),
                   ("xapian-gensim-params", xapian.BM25Weight(1.5, 0, 1, 0.75, 0))]
        result = {"peer": "xapian", "version": xapian.version_string(), "form": args.form,
                  "build_s": build, "build_cpu_s": build_cpu, "weightings": {}}
        for name, w in weights:
            enq = xapian.Enquire(db)
            enq.set_weighting_scheme(w)

            def top(text, k=10):
                enq.set_query(qp.parse_query(text))
                return enq.get_mset(0, k)

            hits = 0
            for q in questions:
                m = top(q["question"])
                if m.size() > 0 and ids[m[0].docid - 1] in set(q["gold_candidate_ids"]):
                    hits += 1
            p1 = 100.0 * hits / len(questions)
            sample = questions[: args.latency_questions]
            for q in sample:  # warm pass
                top(q["question"])
            lat = []
            c0 = time.process_time()
            for q in sample:
                t0 = time.perf_counter()
                top(q["question"])
                lat.append((time.perf_counter() - t0) * 1e6)
            cpu = (time.process_time() - c0) * 1e6 / len(sample)
            p50, p99 = pct(lat, 0.50), pct(lat, 0.99)
            print(f"{name}: P@1 {p1:.2f}, top-10 query p50 {p50:.1f} us, p99 {p99:.1f} us, cpu {cpu:.1f} us/query")
            result["weightings"][name] = {"p_at_1": p1, "p50_us": p50, "p99_us": p99, "cpu_us": cpu}
        print("PEER-RESULT " + json.dumps(result))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
