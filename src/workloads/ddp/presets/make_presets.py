#!/usr/bin/env python3
"""Writes ddp_step_perf's model presets (src/workloads/ddp/presets/*.csv) from the architectures.

Run from anywhere: python3 src/workloads/ddp/presets/make_presets.py. The CSV files are the product and are
committed; the build embeds them (src/workloads/ddp/CMakeLists.txt). This script is how their numbers were
derived, so a reviewer can follow every figure back to an architecture table.

One line per layer in forward (execution) order; its parameter tensors in registration order
(model.parameters()), so the concatenation over layers is the model's registration order.

GEMMs are written MxNxK or MxNxKxCOUNT (COUNT: a batch of equal GEMMs, e.g. one per attention
head); exactly one factor is B*<n>: that factor is multiplied by the batch at run time.
  dense layer y = x W^T, x (M x K), W (N x K):  forward M x N x K;  input gradient dX = dY W:
  M x K x N;  weight gradient dW = dY^T X: N x K x M.  M = batch x positions (tokens or pixels).
  convolution as an implicit GEMM: M = batch x H_out x W_out, N = C_out, K = C_in x kh x kw, with
  the same three products (the backward ones are the forward product's transposes: the same
  FLOPs; the im2col/col2im traffic of an explicit GEMM is not counted, as oneDNN's direct kernels
  have none).
  a product of two activations (attention scores Q K^T, context P V): "input gradient" is the
  gradient of the first operand, "weight gradient" that of the second.
Elementwise work (bias, batch and layer norm, activations, dropout, softmax, residual adds,
embedding gathers, the loss) is bytes touched, float32 reads plus writes, per sample (B*<n>) and
per step (+<n>: a dense embedding gradient zeroed each step): estimates made by counting the
reads and writes of each eager-mode kernel, written next to each figure below. Not measured.
"""
import os

F = 4  # bytes per float32 element


def scaled(per_sample, fixed=0):
    per_sample, fixed = int(per_sample), int(fixed)
    if per_sample == 0 and fixed == 0:
        return "0"
    if per_sample == 0:
        return str(fixed)
    return f"B*{per_sample}" + (f"+{fixed}" if fixed else "")


class Preset:
    def __init__(self, name, source):
        self.name, self.source, self.lines = name, source, []
        self.parameters = 0

    def layer(self, name, params=(), forward="", input_grad="", weight_grad="", fwd=0, bwd=0, bwd_fixed=0, fwd_fixed=0):
        text = ";".join(f"{tensor}:{elements}" for tensor, elements in params)
        self.parameters += sum(elements for _, elements in params)
        self.lines.append(",".join([name, text, forward, input_grad, weight_grad, scaled(fwd, fwd_fixed), scaled(bwd, bwd_fixed)]))

    def dense(self, name, positions, fan_in, fan_out, bias=True, fwd=0, bwd=0, params=None):
        """A dense layer over `positions` rows per sample; bias add (forward: addmm's copy of the
        bias into the output, 1 write) and bias gradient (a column sum of dY, 1 read)."""
        out = positions * fan_out
        if params is None:
            params = [(name + ".weight", fan_in * fan_out)] + ([(name + ".bias", fan_out)] if bias else [])
        self.layer(name, params,
                   f"B*{positions}x{fan_out}x{fan_in}", f"B*{positions}x{fan_in}x{fan_out}", f"{fan_out}x{fan_in}xB*{positions}",
                   fwd=F * (out if bias else 0) + fwd, bwd=F * (out if bias else 0) + bwd)

    def write(self, directory):
        path = os.path.join(directory, self.name + ".csv")
        with open(path, "w") as out:
            out.write(f"# model: {self.name}\n")
            for line in self.source.strip().splitlines():
                out.write(f"# source: {line.strip()}\n")
            out.write(f"# {self.parameters} parameters. Written by make_presets.py (its docstring: the conventions).\n")
            out.write("layer,params,forward,input_grad,weight_grad,forward_bytes,backward_bytes\n")
            out.write("\n".join(self.lines) + "\n")
        return path


def linear_1024():
    p = Preset("linear-1024", "torch.nn.Linear(1024, 1), the seed article's DDP example: weight 1x1024, bias 1")
    p.dense("linear", 1, 1024, 1, params=[("weight", 1024), ("bias", 1)])
    return p


def resnet50():
    p = Preset("resnet50", """
        torchvision.models.resnet50 (ResNet v1.5: stride on the 3x3 convolution), 224x224 input.
        Layers and widths: He et al. 2016, "Deep Residual Learning for Image Recognition", Table 1;
        registration order and v1.5 stride placement: torchvision/models/resnet.py (Bottleneck).
        25,557,032 parameters, 4.09 GMACs forward (torchvision's model card).""")

    def conv(name, cin, cout, kernel, side_out, bwd=0):
        positions, fan_in = side_out * side_out, cin * kernel * kernel
        p.layer(name, [(name + ".weight", cout * fan_in)],
                f"B*{positions}x{cout}x{fan_in}", f"B*{positions}x{fan_in}x{cout}", f"{cout}x{fan_in}xB*{positions}", bwd=bwd)

    def bn(name, channels, side, relu, fwd_extra=0, bwd_extra=0):
        n = channels * side * side
        # Training batch norm: forward reads x for the statistics, then reads x and writes y (3);
        # backward reads dY and x for two reductions, then dY and x again and writes dX (5).
        # ReLU in place: forward read + write (2); backward reads dY and y, writes dX (3).
        fwd = 3 * n + (2 * n if relu else 0) + fwd_extra
        bwd = 5 * n + (3 * n if relu else 0) + bwd_extra
        p.layer(name, [(name + ".weight", channels), (name + ".bias", channels)], fwd=F * fwd, bwd=F * bwd)

    conv("conv1", 3, 64, 7, 112)
    bn("bn1", 64, 112, relu=True)
    # Max pool 3x3/2: reads the input, writes the output and int64 indices; backward zeroes dX,
    # reads dY and the indices, adds into dX.
    n_in, n_out = 64 * 112 * 112, 64 * 56 * 56
    p.layer("maxpool", fwd=F * (n_in + n_out) + 8 * n_out, bwd=F * (n_in + 3 * n_out) + 8 * n_out)
    cin, side = 64, 56
    for stage, (planes, blocks) in enumerate([(64, 3), (128, 4), (256, 6), (512, 3)]):
        for block in range(blocks):
            prefix = f"layer{stage + 1}.{block}."
            stride = 2 if block == 0 and stage > 0 else 1
            side_out = side // stride
            cout = 4 * planes
            n_block_out, n_block_in = cout * side_out * side_out, cin * side * side
            # Backward of conv1: the block input's gradient is the sum of two branches (read 2, write 1).
            conv(prefix + "conv1", cin, planes, 1, side, bwd=F * 3 * n_block_in)
            bn(prefix + "bn1", planes, side, relu=True)
            conv(prefix + "conv2", planes, planes, 3, side_out)
            bn(prefix + "bn2", planes, side_out, relu=True)
            conv(prefix + "conv3", planes, cout, 1, side_out)
            # The residual add (read 2, write 1) and the last ReLU (2; backward 3) go with the
            # block's last layer: bn3, or downsample.1 where the block has one.
            add_relu_fwd, add_relu_bwd = 5 * n_block_out, 3 * n_block_out
            if block == 0:
                bn(prefix + "bn3", cout, side_out, relu=False)
                conv(prefix + "downsample.0", cin, cout, 1, side_out)
                bn(prefix + "downsample.1", cout, side_out, relu=False, fwd_extra=add_relu_fwd, bwd_extra=add_relu_bwd)
            else:
                bn(prefix + "bn3", cout, side_out, relu=False, fwd_extra=add_relu_fwd, bwd_extra=add_relu_bwd)
            cin, side = cout, side_out
    # Global average pool: reads 7x7x2048, writes 2048; backward the other way.
    p.layer("avgpool", fwd=F * (49 * 2048 + 2048), bwd=F * (49 * 2048 + 2048))
    p.dense("fc", 1, 2048, 1000)
    return p


def dropout(n):
    """Dropout in training: forward reads x, writes y and a 1-byte mask; backward reads dY and the
    mask, writes dX."""
    return F * 2 * n + n, F * 2 * n + n


def attention(p, prefix, tokens, heads, head_dim):
    """Eager attention (attn_implementation="eager"): scores and probabilities materialised."""
    e = heads * tokens * tokens  # score elements per sample
    drop_fwd, drop_bwd = dropout(e)
    # Forward: scale (2), mask (2: read, write; the mask itself is small), softmax (3: two passes,
    # one write), dropout. Backward: dropout, softmax (3: y, dY, dX), scale (2).
    p.layer(prefix + "scores", (), f"{tokens}x{tokens}x{head_dim}xB*{heads}", f"{tokens}x{head_dim}x{tokens}xB*{heads}",
            f"{tokens}x{head_dim}x{tokens}xB*{heads}", fwd=F * 7 * e + drop_fwd, bwd=F * 5 * e + drop_bwd)
    n = tokens * heads * head_dim
    # The heads merged back into one row per token: a permute made contiguous (read + write), both ways.
    p.layer(prefix + "context", (), f"{tokens}x{head_dim}x{tokens}xB*{heads}", f"{tokens}x{tokens}x{head_dim}xB*{heads}",
            f"{tokens}x{head_dim}x{tokens}xB*{heads}", fwd=F * 2 * n, bwd=F * 2 * n)


def layer_norm(p, name, width, tokens, residual_grad=True):
    n = width * tokens
    # Forward: statistics (read), normalise (read, write). Backward: two reductions over dY and x,
    # then dX (5); plus the residual stream's two gradients summed (3).
    p.layer(name, [(name + ".weight", width), (name + ".bias", width)], fwd=F * 3 * n,
            bwd=F * (5 * n + (3 * n if residual_grad else 0)))


def bert_large():
    tokens, hidden, heads, intermediate, vocabulary = 128, 1024, 16, 4096, 30522
    p = Preset("bert-large", f"""
        BERT-large (Devlin et al. 2019: L=24, H=1024, A=16, "340M"), Hugging Face transformers
        BertModel with its pooler (modeling_bert.py), eager attention, {tokens} tokens per sample
        (pre-training phase 1): 335,141,888 parameters.""")
    n = tokens * hidden
    # Three gathers (read, write) and two adds (read 2, write 1). Backward: per embedding, dY read
    # and the rows added into the gradient (3), and the dense gradient zeroed every step.
    p.layer("embeddings", [("embeddings.word_embeddings.weight", vocabulary * hidden),
                           ("embeddings.position_embeddings.weight", 512 * hidden),
                           ("embeddings.token_type_embeddings.weight", 2 * hidden)],
            fwd=F * 12 * n, bwd=F * 9 * n, bwd_fixed=F * (vocabulary + 512 + 2) * hidden)
    drop_fwd, drop_bwd = dropout(n)
    p.layer("embeddings.LayerNorm", [("embeddings.LayerNorm.weight", hidden), ("embeddings.LayerNorm.bias", hidden)],
            fwd=F * 3 * n + drop_fwd, bwd=F * 5 * n + drop_bwd)
    for layer in range(24):
        prefix = f"encoder.layer.{layer}."
        for part in ("query", "key", "value"):
            p.dense(prefix + "attention.self." + part, tokens, hidden, hidden)
        attention(p, prefix + "attention.self.", tokens, heads, hidden // heads)
        # Output projection, then dropout and the residual add (read 2, write 1).
        p.dense(prefix + "attention.output.dense", tokens, hidden, hidden, fwd=drop_fwd + F * 3 * n, bwd=drop_bwd)
        layer_norm(p, prefix + "attention.output.LayerNorm", hidden, tokens)
        ni = tokens * intermediate
        # GELU (erf, one kernel): forward read + write; backward reads dY and x, writes dX.
        p.dense(prefix + "intermediate.dense", tokens, hidden, intermediate, fwd=F * 2 * ni, bwd=F * 3 * ni)
        p.dense(prefix + "output.dense", tokens, intermediate, hidden, fwd=drop_fwd + F * 3 * n, bwd=drop_bwd)
        layer_norm(p, prefix + "output.LayerNorm", hidden, tokens)
    # The pooler reads the first token: tanh (2; backward 3); backward also scatters its gradient
    # into a zeroed tokens x hidden gradient.
    p.dense("pooler.dense", 1, hidden, hidden, fwd=F * 2 * hidden, bwd=F * (3 * hidden + n))
    return p


def gpt2_small():
    tokens, width, heads, vocabulary = 1024, 768, 12, 50257
    p = Preset("gpt2-small", f"""
        GPT-2 small (Radford et al. 2019: 12 layers, d=768, 12 heads, vocabulary 50257, context
        1024), Hugging Face transformers GPT2LMHeadModel (modeling_gpt2.py) with the LM head tied
        to wte, eager attention, {tokens} tokens per sample: 124,439,808 parameters.""")
    n = tokens * width
    # wte's gradient: the gather's backward (per sample 3, a zeroed dense gradient per step), then
    # the LM head's contribution summed into it (read 2, write 1, per step).
    p.layer("wte", [("wte.weight", vocabulary * width)], fwd=F * 2 * n, bwd=F * 3 * n,
            bwd_fixed=F * 4 * vocabulary * width)
    drop_fwd, drop_bwd = dropout(n)
    p.layer("wpe", [("wpe.weight", 1024 * width)], fwd=F * 5 * n + drop_fwd, bwd=F * 3 * n + drop_bwd,
            bwd_fixed=F * 1024 * width)
    for layer in range(12):
        prefix = f"h.{layer}."
        layer_norm(p, prefix + "ln_1", width, tokens)
        p.dense(prefix + "attn.c_attn", tokens, width, 3 * width)  # Conv1D: addmm, weight stored (in, out)
        attention(p, prefix + "attn.", tokens, heads, width // heads)
        p.dense(prefix + "attn.c_proj", tokens, width, width, fwd=drop_fwd + F * 3 * n, bwd=drop_bwd)
        layer_norm(p, prefix + "ln_2", width, tokens)
        ni = tokens * 4 * width
        # gelu_new in eager mode (NewGELUActivation): 8 elementwise kernels, 18 element passes
        # forward; autograd through them about 40 backward.
        p.dense(prefix + "mlp.c_fc", tokens, width, 4 * width, fwd=F * 18 * ni, bwd=F * 40 * ni)
        p.dense(prefix + "mlp.c_proj", tokens, 4 * width, width, fwd=drop_fwd + F * 3 * n, bwd=drop_bwd)
    layer_norm(p, "ln_f", width, tokens, residual_grad=False)
    logits = tokens * vocabulary
    # The tied head: no parameter of its own (its weight gradient is wte's). The loss: logits
    # shifted and made contiguous (2), log-softmax (3); backward: NLL's zeroed gradient and scatter
    # (1), log-softmax (3), the shift's zero-fill and copy (2).
    p.layer("lm_head", (), f"B*{tokens}x{vocabulary}x{width}", f"B*{tokens}x{width}x{vocabulary}",
            f"{vocabulary}x{width}xB*{tokens}", fwd=F * 5 * logits, bwd=F * 6 * logits)
    return p


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    expected = {"linear-1024": 1025, "resnet50": 25557032, "bert-large": 335141888, "gpt2-small": 124439808}
    for preset in (linear_1024(), resnet50(), bert_large(), gpt2_small()):
        assert preset.parameters == expected[preset.name], (preset.name, preset.parameters)
        print(preset.write(here), preset.parameters)
