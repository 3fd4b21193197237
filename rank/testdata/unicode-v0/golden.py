#!/usr/bin/env python3
"""Writes asks.json: `reqa ask --json` of every question below with every
ranker of unicode.reqa, as the reqa binary given as argv[1] answers them.
Run in this directory: python3 golden.py /path/to/reqa"""
import json, subprocess, sys

QUESTIONS = [
    "Where did chess players meet at the Café Régence?",        # NFC; the text is NFD
    "Where did chess players meet at the Cafe\u0301 Re\u0301gence?",  # NFD
    "When does the cooperative bakery open?",                    # the text has a soft hyphen
    "When does the co\u00adoperative bakery open?",
    "What network runs under the old city?",                    # the text has a ZWJ
    "When are the tunnels inspected?",                           # the text has a ZWSP
    "When does the FERRY leave at 9?",                           # the text is full-width
    "When does the \uff26\uff25\uff32\uff32\uff39 leave?",
    "What does the first floor hold?",                           # the text has ligatures
    "\u2603",                                                    # [UNK] only in wpm
    "漢字",
    "What does the lighthouse keeper record?",
]
RANKERS = ["bm25-word", "bm25-wpm", "bm25-stem", "default"]

out = []
for q in QUESTIONS:
    for r in RANKERS:
        for extra in ([], ["--no-context"]):
            args = ["ask", "--json", "-k", "2", "--ranker", r, *extra, q]
            p = subprocess.run([sys.argv[1], args[0], "--index", "unicode.reqa", *args[1:]],
                               capture_output=True, text=True, check=True)
            out.append({"args": args, "stdout": p.stdout})
with open("asks.json", "w") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
    f.write("\n")
