#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and compute-sanitizer (no Rust needed):
# every kernel of both crates on a small problem under each of
# compute-sanitizer's tools (memcheck, racecheck, synccheck, initcheck),
# through the application example and gpu-runner's file modes. Prints one
# line per kernel and tool; exits 1 when a tool reports an error.
#
#   kernels/scripts/sanitize.sh BIN_DIR [FILTER]
#
# FILTER (a grep -E pattern) keeps the kernels whose name matches it;
# TOOLS (the environment, a space-separated list) narrows the tools.
# BIN_DIR holds `gpu-runner`, `my-app` (kernels/app/build-outside.sh),
# `layout_kernels.ptx` and `layout_kernels_sm90.ptx`. Needs python3 with
# NumPy.
set -uo pipefail
bin=${1:?usage: kernels/scripts/sanitize.sh BIN_DIR [FILTER]}
filter=${2:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
r = np.random.default_rng(7)
def save(name, a):
    np.save(f"{d}/{name}.npy", a)
# Sizes the kernels' contracts take, partial tiles where they allow them.
save("sa", r.standard_normal((128, 40), dtype=np.float32))
save("sa_f", np.asfortranarray(r.standard_normal((128, 40), dtype=np.float32)))
save("sb", r.standard_normal((40, 256), dtype=np.float32))
save("ha", r.standard_normal((256, 96)).astype(np.float16))
save("hb", r.standard_normal((128, 96)).astype(np.float16))
save("h9a", r.standard_normal((129, 72)).astype(np.float16))
save("h9b", r.standard_normal((257, 72)).astype(np.float16))
save("x", r.standard_normal((192, 192), dtype=np.float32))
# bf16 as its bits (the upper half of f32's), N a multiple of 8 (C stored
# by TMA) and not.
bf = lambda a: (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
save("b9a", bf(r.standard_normal((129, 72))))
for n in (264, 257):
    save(f"b9b{n}", bf(r.standard_normal((n, 72))))
    save(f"bias{n}", bf(r.standard_normal(n)))
for dim in (64, 128):
    save(f"q{dim}", r.standard_normal((2, 77, 3, dim)).astype(np.float16))
    save(f"k{dim}", r.standard_normal((2, 200, 3, dim)).astype(np.float16))
    save(f"v{dim}", r.standard_normal((2, 200, 3, dim)).astype(np.float16))
    # Decode: two sequences sharing their first two cache blocks, one
    # ending mid-block, over 12 blocks of 64 tokens, 8 query heads on 2.
    save(f"dq{dim}", r.standard_normal((2, 3, 8, dim)).astype(np.float16))
    save(f"dk{dim}", r.standard_normal((12, 64, 2, dim)).astype(np.float16))
    save(f"dv{dim}", r.standard_normal((12, 64, 2, dim)).astype(np.float16))
    save(f"dkn{dim}", r.standard_normal((3, 2, dim)).astype(np.float16))
    save(f"dvn{dim}", r.standard_normal((3, 2, dim)).astype(np.float16))
# Hopper attention, persistent: more units of work (row blocks x heads)
# than SMs, so that a block computes two in turn.
for dim in (64, 128):
    for n in ("pq", "pk", "pv"):
        save(f"{n}{dim}", r.standard_normal((1, 600, 50, dim)).astype(np.float16))
save("dtable", np.array([[3, 0, 7, 1, 5, 2], [3, 0, 9, 10, 11, 4]], dtype=np.int32))
save("dlens", np.array([333, 190], dtype=np.int32))
save("dslots", np.array([200, -1, 700], dtype=np.int32))
PY
p80=$bin/layout_kernels.ptx
p90=$bin/layout_kernels_sm90.ptx
t=$tmp
# The backward's O and LSE, from the forward (outside the sanitizer).
"$bin/gpu-runner" attention "$p80" flash_attn_fwd "$t/q64.npy" "$t/k64.npy" "$t/v64.npy" "$t/bo64.npy" --causal --lse "$t/blse64.npy" >/dev/null 2>&1
"$bin/gpu-runner" attention "$p80" flash_attn_fwd "$t/q128.npy" "$t/k128.npy" "$t/v128.npy" "$t/bo128.npy" --lse "$t/blse128.npy" >/dev/null 2>&1
runs=(
    "app|$bin/my-app"
    "sgemm_f32|$bin/gpu-runner gemm $p80 sgemm_f32 $t/sa.npy $t/sb.npy $t/c.npy"
    "sgemm_nt_f32|$bin/gpu-runner gemm $p80 sgemm_nt_f32 $t/sa_f.npy $t/sb.npy $t/c.npy"
    "hgemm_f32|$bin/gpu-runner gemm $p80 hgemm_f32 $t/ha.npy $t/hb.npy $t/c.npy"
    "hgemm_f16|$bin/gpu-runner gemm $p80 hgemm_f16 $t/ha.npy $t/hb.npy $t/c.npy"
    "hgemm_sm90|$bin/gpu-runner gemm $p90 hgemm_sm90 $t/h9a.npy $t/h9b.npy $t/c.npy"
    "gemm_bias_gelu_bf16_sm90 TMA store|$bin/gpu-runner gemm $p90 gemm_bias_gelu_bf16_sm90 $t/b9a.npy $t/b9b264.npy $t/c.npy --dtype bfloat16 --bias $t/bias264.npy"
    "gemm_bias_gelu_bf16_sm90 odd N|$bin/gpu-runner gemm $p90 gemm_bias_gelu_bf16_sm90 $t/b9a.npy $t/b9b257.npy $t/c.npy --dtype bfloat16 --bias $t/bias257.npy"
    "gemm_bias_gelu_tanh_bf16_sm90 TMA store|$bin/gpu-runner gemm $p90 gemm_bias_gelu_tanh_bf16_sm90 $t/b9a.npy $t/b9b264.npy $t/c.npy --dtype bfloat16 --bias $t/bias264.npy"
    "gemm_bias_gelu_tanh_bf16_sm90 odd N|$bin/gpu-runner gemm $p90 gemm_bias_gelu_tanh_bf16_sm90 $t/b9a.npy $t/b9b257.npy $t/c.npy --dtype bfloat16 --bias $t/bias257.npy"
    "transpose_f32|$bin/gpu-runner transpose $p80 transpose_f32 $t/x.npy $t/y.npy"
    "flash_attn_fwd d64 causal|$bin/gpu-runner attention $p80 flash_attn_fwd $t/q64.npy $t/k64.npy $t/v64.npy $t/o.npy --causal --lse $t/lse.npy"
    "flash_attn_fwd d128|$bin/gpu-runner attention $p80 flash_attn_fwd $t/q128.npy $t/k128.npy $t/v128.npy $t/o.npy --lse $t/lse.npy"
    "flash_attn_fwd_sm90 d64 causal|$bin/gpu-runner attention $p90 flash_attn_fwd_sm90 $t/q64.npy $t/k64.npy $t/v64.npy $t/o.npy --causal --lse $t/lse.npy"
    "flash_attn_fwd_sm90 d128|$bin/gpu-runner attention $p90 flash_attn_fwd_sm90 $t/q128.npy $t/k128.npy $t/v128.npy $t/o.npy --lse $t/lse.npy"
    "flash_attn_fwd_sm90 persistent d64 causal|$bin/gpu-runner attention $p90 flash_attn_fwd_sm90 $t/pq64.npy $t/pk64.npy $t/pv64.npy $t/o.npy --causal --lse $t/lse.npy"
    "flash_attn_fwd_sm90 persistent d128|$bin/gpu-runner attention $p90 flash_attn_fwd_sm90 $t/pq128.npy $t/pk128.npy $t/pv128.npy $t/o.npy --lse $t/lse.npy"
    "flash_attn_bwd d64 causal|$bin/gpu-runner attention-bwd $p80 flash_attn_bwd $t/q64.npy $t/k64.npy $t/v64.npy $t/bo64.npy $t/q64.npy $t/blse64.npy $t/dq.npy $t/dk.npy $t/dv.npy --causal"
    "flash_attn_bwd d128|$bin/gpu-runner attention-bwd $p80 flash_attn_bwd $t/q128.npy $t/k128.npy $t/v128.npy $t/bo128.npy $t/q128.npy $t/blse128.npy $t/dq.npy $t/dk.npy $t/dv.npy"
    "flash_attn_bwd d64 causal deterministic|$bin/gpu-runner attention-bwd $p80 flash_attn_bwd $t/q64.npy $t/k64.npy $t/v64.npy $t/bo64.npy $t/q64.npy $t/blse64.npy $t/dq.npy $t/dk.npy $t/dv.npy --causal --deterministic"
    "decode d128 causal append|$bin/gpu-runner decode $p80 decode_attn $t/dq128.npy $t/dk128.npy $t/dv128.npy $t/dtable.npy $t/dlens.npy $t/o.npy --causal --lse $t/lse.npy --append $t/dkn128.npy $t/dvn128.npy $t/dslots.npy"
    "decode d128 split|$bin/gpu-runner decode $p80 decode_attn $t/dq128.npy $t/dk128.npy $t/dv128.npy $t/dtable.npy $t/dlens.npy $t/o.npy --lse $t/lse.npy --split-keys 64"
    "decode d64 causal split|$bin/gpu-runner decode $p80 decode_attn $t/dq64.npy $t/dk64.npy $t/dv64.npy $t/dtable.npy $t/dlens.npy $t/o.npy --causal --split-keys 128"
)
status=0
for tool in ${TOOLS:-memcheck racecheck synccheck initcheck}; do
    for run in "${runs[@]}"; do
        name=${run%%|*}
        cmd=${run#*|}
        echo "$name" | grep -qE -- "$filter" || continue
        log=$tmp/log
        # shellcheck disable=SC2086
        compute-sanitizer --tool "$tool" --error-exitcode 99 $cmd >"$log" 2>&1
        rc=$?
        summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
        if [ "$rc" -eq 0 ]; then
            echo "$tool | $name | ok | $summary"
        else
            echo "$tool | $name | FAILED (exit $rc) | $summary"
            grep -vE "^========= *$" "$log" | head -8 | sed 's/^/    /'
            status=1
        fi
    done
done
exit $status
