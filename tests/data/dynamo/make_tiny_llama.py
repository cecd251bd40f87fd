#!/usr/bin/python3
"""Writes tiny_llama_dynamo.onnx: a 4-layer Llama-shaped decoder (hidden size 8) whose nodes carry the
metadata a PyTorch 2.x dynamo export writes (torch.onnx.export(..., dynamo=True)): node names like
"node_MatMul_12" that say nothing of the module, and metadata_props `namespace`,
`pkg.torch.onnx.name_scopes` and `pkg.torch.onnx.class_hierarchy` naming it. The onnx 1.12 Python package
has no NodeProto.metadata_props (field 9, onnx 1.16), so the entries are appended as raw protobuf fields.

Run with Debian's /usr/bin/python3 (python3-onnx): /usr/bin/python3 make_tiny_llama.py
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HIDDEN, HEADS, LAYERS, FFN = 8, 2, 4, 16
nodes, inits = [], []
counter = [0]


def field9(key, value):
    entry = onnx.StringStringEntryProto(key=key, value=value).SerializeToString()
    length, out = len(entry), bytearray([0x4A])
    while True:
        byte = length & 0x7F
        length >>= 7
        out.append(byte | (0x80 if length else 0))
        if not length:
            break
    return bytes(out) + entry


def node(op, inputs, modules, **attrs):
    """modules: [(cumulative name, class)] from the root's child down to the module holding the node."""
    counter[0] += 1
    fx = f"{op.lower()}_{counter[0]}"
    out = f"{fx}_out"
    n = helper.make_node(op, inputs, [out], name=f"node_{op}_{counter[0]}", **attrs)
    names = [""] + [m for m, _ in modules] + [fx]
    classes = ["__main__.TinyLlama"] + [c for _, c in modules] + [f"aten.{op.lower()}.default"]
    namespace = "/".join(f"{n_}: {c}" for n_, c in zip(names, classes))
    extra = field9("namespace", namespace)
    extra += field9("pkg.torch.onnx.class_hierarchy", repr(classes))
    extra += field9("pkg.torch.onnx.name_scopes", repr(names))
    n.MergeFromString(extra)
    nodes.append(n)
    return out


def weight(name, *shape):
    inits.append(numpy_helper.from_array((np.random.RandomState(len(inits)).randn(*shape) * 0.3).astype(np.float32), name))
    return name


def const(name, values, dtype=np.int64):
    inits.append(numpy_helper.from_array(np.array(values, dtype=dtype), name))
    return name


def rms_norm(x, scope, cls="transformers.models.llama.modeling_llama.LlamaRMSNorm"):
    m = scope + [(scope[-1][0] if False else None, None)][:0]
    mods = scope
    sq = node("Mul", [x, x], mods)
    mean = node("ReduceMean", [sq], mods, axes=[-1], keepdims=1)
    eps = node("Add", [mean, const(f"eps_{counter[0]}", [1e-6], np.float32)], mods)
    root = node("Sqrt", [eps], mods)
    inv = node("Reciprocal", [root], mods)
    normed = node("Mul", [x, inv], mods)
    return node("Mul", [normed, weight(f"{mods[-1][0]}.weight", HIDDEN)], mods)


def linear(x, scope, name, rows, cols):
    mods = scope + [(f"{scope[-1][0]}.{name}", "torch.nn.modules.linear.Linear")]
    return node("MatMul", [x, weight(f"{mods[-1][0]}.weight", rows, cols)], mods)


def rotary(x, mods, cos, sin):
    half = HIDDEN // HEADS // 2
    first = node("Slice", [x, const(f"s0_{counter[0]}", [0]), const(f"s1_{counter[0]}", [half]), const(f"ax_{counter[0]}", [-1])], mods)
    second = node("Slice", [x, const(f"s0_{counter[0]}", [half]), const(f"s1_{counter[0]}", [2 * half]), const(f"ax_{counter[0]}", [-1])], mods)
    neg = node("Neg", [second], mods)
    rotated = node("Concat", [neg, first], mods, axis=-1)
    return node("Add", [node("Mul", [x, cos], mods), node("Mul", [rotated, sin], mods)], mods)


def attention(x, layer, cos, sin, mask):
    mods = layer + [(f"{layer[-1][0]}.self_attn", "transformers.models.llama.modeling_llama.LlamaAttention")]
    head = HIDDEN // HEADS
    split = const(f"split_shape_{counter[0]}", [1, -1, HEADS, head])
    qkv = []
    for proj in ("q_proj", "k_proj", "v_proj"):
        y = linear(x, mods, proj, HIDDEN, HIDDEN)
        y = node("Reshape", [y, split], mods)
        qkv.append(node("Transpose", [y], mods, perm=[0, 2, 1, 3]))
    q, k, v = qkv
    q, k = rotary(q, mods, cos, sin), rotary(k, mods, cos, sin)
    kt = node("Transpose", [k], mods, perm=[0, 1, 3, 2])
    scores = node("Div", [node("MatMul", [q, kt], mods), const(f"scale_{counter[0]}", [head ** 0.5], np.float32)], mods)
    probs = node("Softmax", [node("Add", [scores, mask], mods)], mods, axis=-1)
    context = node("Transpose", [node("MatMul", [probs, v], mods)], mods, perm=[0, 2, 1, 3])
    merged = node("Reshape", [context, const(f"merge_shape_{counter[0]}", [1, -1, HIDDEN])], mods)
    return linear(merged, mods, "o_proj", HIDDEN, HIDDEN)


def mlp(x, layer):
    mods = layer + [(f"{layer[-1][0]}.mlp", "transformers.models.llama.modeling_llama.LlamaMLP")]
    gate = linear(x, mods, "gate_proj", HIDDEN, FFN)
    act = mods + [(f"{mods[-1][0]}.act_fn", "torch.nn.modules.activation.SiLU")]
    silu = node("Mul", [gate, node("Sigmoid", [gate], act)], act)
    up = linear(x, mods, "up_proj", HIDDEN, FFN)
    return linear(node("Mul", [silu, up], mods), mods, "down_proj", FFN, HIDDEN)


model_scope = [("model", "transformers.models.llama.modeling_llama.LlamaModel")]
embed = model_scope + [("model.embed_tokens", "torch.nn.modules.sparse.Embedding")]
h = node("Gather", [weight("model.embed_tokens.weight", 32, HIDDEN), "input_ids"], embed)
rot = model_scope + [("model.rotary_emb", "transformers.models.llama.modeling_llama.LlamaRotaryEmbedding")]
angles = node("Mul", ["positions", const("inv_freq", np.linspace(0.1, 1.0, HIDDEN // HEADS), np.float32)], rot)
cos, sin = node("Cos", [angles], rot), node("Sin", [angles], rot)
mask = node("Mul", ["attention_bias", const("mask_scale", [1.0], np.float32)], model_scope)
for i in range(LAYERS):
    layer = model_scope + [(f"model.layers.{i}", "transformers.models.llama.modeling_llama.LlamaDecoderLayer")]
    normed = rms_norm(h, layer + [(f"model.layers.{i}.input_layernorm", "LlamaRMSNorm")])
    h = node("Add", [h, attention(normed, layer, cos, sin, mask)], layer)
    normed = rms_norm(h, layer + [(f"model.layers.{i}.post_attention_layernorm", "LlamaRMSNorm")])
    h = node("Add", [h, mlp(normed, layer)], layer)
h = rms_norm(h, model_scope + [("model.norm", "LlamaRMSNorm")])
logits = node("MatMul", [h, weight("lm_head.weight", HIDDEN, 32)], [("lm_head", "torch.nn.modules.linear.Linear")])
nodes[-1].output[0] = "logits"

graph = helper.make_graph(
    nodes, "main_graph",
    [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "seq"]),
     helper.make_tensor_value_info("positions", TensorProto.FLOAT, ["seq", HIDDEN // HEADS]),
     helper.make_tensor_value_info("attention_bias", TensorProto.FLOAT, [1, 1, "seq", "seq"])],
    [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, "seq", 32])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="pytorch",
                          producer_version="2.5.0")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, "tiny_llama_dynamo.onnx")
print(len(nodes), "nodes")
