#!/usr/bin/env python3
"""Reference oracle for the word package's differential test (oracle_test.go).

Reads one JSON string per line on stdin and writes, per line, the JSON list of
tokens that NLTK's NLTKWordTokenizer().tokenize gives for it. The tokenizer is
loaded from the destructive.py file named by the first argument (for example
NLTK 3.5's nltk/tokenize/destructive.py, which needs nothing but `re`), so no
NLTK installation or nltk_data is required; without an argument the installed
nltk package is used.
"""
import json
import sys
import types


def load_tokenizer(path):
    if path is None:
        from nltk.tokenize.destructive import NLTKWordTokenizer
        return NLTKWordTokenizer()
    api = types.ModuleType("nltk.tokenize.api")

    class TokenizerI:  # the only name destructive.py imports
        pass

    api.TokenizerI = TokenizerI
    for name in ("nltk", "nltk.tokenize"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["nltk.tokenize.api"] = api
    ns = {"__name__": "nltk.tokenize.destructive"}
    with open(path, encoding="utf-8") as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns["NLTKWordTokenizer"]()


def main():
    tok = load_tokenizer(sys.argv[1] if len(sys.argv) > 1 else None)
    out = sys.stdout
    for line in sys.stdin:
        s = json.loads(line)
        out.write(json.dumps(tok.tokenize(s), ensure_ascii=True))
        out.write("\n")


if __name__ == "__main__":
    main()
