#!/usr/bin/env python3
"""An independent reference for package wordpiece: BERT's BasicTokenizer and
WordpieceTokenizer (uncased), written for reqa from the algorithm of Google's
tokenization.py / transformers' BertTokenizer, using only the Python standard
library (Python's own unicodedata and str.lower()).

Usage: bert_reference.py TOKENIZER_JSON < texts.jsonl > tokens.jsonl
Each input line is a JSON string; each output line is the JSON list of its
tokens. Special tokens written verbatim in the text ("[MASK]", ...) are kept
whole, as transformers does.

TestPythonReference (reference_test.go) runs this over the SQuAD contexts.
"""
import json
import sys
import unicodedata


def is_whitespace(ch):
    if ch in " \t\n\r":
        return True
    return unicodedata.category(ch) == "Zs"


def is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or
            0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F or
            0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or
            0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def clean(text):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or is_control(ch):
            continue
        out.append(" " if is_whitespace(ch) else ch)
    return "".join(out)


def space_cjk(text):
    return "".join(" %s " % ch if is_cjk(ord(ch)) else ch for ch in text)


def strip_accents(text):
    return "".join(ch for ch in unicodedata.normalize("NFD", text)
                   if unicodedata.category(ch) != "Mn")


def split_punct(word):
    out, cur = [], []
    for ch in word:
        if is_punctuation(ch):
            if cur:
                out.append("".join(cur))
                cur = []
            out.append(ch)
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def basic(text):
    text = space_cjk(clean(text))
    words = []
    for tok in text.split():
        tok = strip_accents(tok.lower())
        words.extend(split_punct(tok))
    return " ".join(words).split()


def wordpiece(word, vocab, unk, max_chars):
    if len(word) > max_chars:
        return [unk]
    out, start = [], 0
    while start < len(word):
        end, cur = len(word), None
        while start < end:
            sub = word[start:end]
            if start > 0:
                sub = "##" + sub
            if sub in vocab:
                cur = sub
                break
            end -= 1
        if cur is None:
            return [unk]
        out.append(cur)
        start = end
    return out


def tokenize(text, vocab, unk, max_chars, specials):
    out = []
    while text:
        at, which = len(text), ""
        for sp in specials:
            i = text.find(sp)
            if 0 <= i < at or (i == at and len(sp) > len(which)):
                at, which = i, sp
        for w in basic(text[:at]):
            out.extend(wordpiece(w, vocab, unk, max_chars))
        if which:
            out.append(which)
        text = text[at + len(which):]
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cfg = json.load(f)
    model = cfg["model"]
    vocab = set(model["vocab"])
    unk = model["unk_token"]
    max_chars = model["max_input_chars_per_word"]
    specials = [a["content"] for a in cfg["added_tokens"]]
    for line in sys.stdin:
        text = json.loads(line)
        json.dump(tokenize(text, vocab, unk, max_chars, specials), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main()
