#!/usr/bin/env bash
# e2e.sh - end-to-end tests of the built compiler against independent
# references: the committed small CNN and the seed CNNs (PyTorch outputs),
# the RNN golden model (ONNX Runtime outputs),
# single-operator ONNX conformance cases (Debian's libonnx-testdata), the
# strictness of the generated C, determinism, no malloc/stdio, and refusal
# of bad input. Prints "N passed, N failed" last; exit 1 on any failure.
#
# Seed models come from golden/export_models.py into $CTVM_CACHE
# (default ~/.cache/ctvm/models); CTVM_SKIP_SEED=1 skips them.
set -u
cd "$(dirname "$0")/.."
# CTVM_BIN: the folder of the ctvm binaries under test (default build; tests/san.sh
# gives build-san, the compiler built with ASan+UBSan)
BIN=${CTVM_BIN:-build}
EMIT=$BIN/ctvm-emit
# CTVM_CFLAGS replaces ctvm-run's -O2 for every generated build, e.g. a whole
# run under UBSan: CTVM_CFLAGS="-O1 -fsanitize=undefined,alignment -fno-sanitize-recover=all"
# (a check's own --cflags, given later, wins).
RUN() { $BIN/ctvm-run ${CTVM_CFLAGS:+--cflags "$CTVM_CFLAGS"} "$@"; }
T=$(mktemp -d /tmp/ctvm-e2e-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; failed=()
ok()   { pass=$((pass+1)); echo "ok   $1"; }
bad()  { fail=$((fail+1)); failed+=("$1"); echo "FAIL $1"; }
check() { local name=$1; shift; if "$@" > "$T/log" 2>&1; then ok "$name"; else bad "$name"; sed 's/^/     /' "$T/log" | tail -20; fi; }

# --- targets ------------------------------------------------------------------
# Every check that runs generated code runs it for each target in TARGETS:
#  - CTVM_TARGETS (default: every ISA this host executes: generic, and
#    x86_64-sse4/avx2/avx512 when /proc/cpuinfo lists them), and
#  - CTVM_CROSS_TARGETS (default: aarch64 armv7-neon riscv64): built -static
#    with Debian's cross gcc and run under qemu-user by ctvm-run.
# The compiler and flags a generated file needs are the ones its stamp names
# ("Build: <cc> -O2 <flags> -c this_file.c"):
. tools/stamp.sh # stamp_cc FILE, stamp_flags FILE
host_targets() {
  local t=generic f; f=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
  [[ " $f " == *" sse4_1 "* ]] && t="$t x86_64-sse4"
  [[ " $f " == *" avx2 "* && " $f " == *" fma "* ]] && t="$t x86_64-avx2"
  [[ " $f " == *" avx512f "* ]] && t="$t x86_64-avx512"
  echo $t
}
HOST_TARGETS=${CTVM_TARGETS:-$(host_targets)}
CROSS_TARGETS=${CTVM_CROSS_TARGETS-aarch64 armv7-neon riscv64}
# each target's compiler and qemu-user runner, from the compiler's own table
declare -A TCC TRUNNER
while read -r name _ _ _ cc runner _; do TCC[$name]=$cc TRUNNER[$name]=$runner; done < <($EMIT --list-targets)
toolchain() { # target: its cross gcc and qemu-user are installed
  command -v "${TCC[$1]}" && command -v "${TRUNNER[$1]}"
}
for t in $CROSS_TARGETS; do
  check "cross toolchain for $t installed (${TCC[$t]:-?}, ${TRUNNER[$t]:-?}; tools/deps.sh)" toolchain "$t"
done
TARGETS="$HOST_TARGETS $CROSS_TARGETS"
echo "targets: $TARGETS"

# --- docs generated from the operator table are current --------------------------
check "docs/OPERATORS.md matches ir/op_table.h (python3 tools/gen_op_list.py > docs/OPERATORS.md)" \
  bash -c 'python3 tools/gen_op_list.py | diff -q - docs/OPERATORS.md'

# --- models against PyTorch --------------------------------------------------
golden_model() { # dir target [more ctvm-run options]
  local d=$1 t=$2; shift 2
  RUN "$d/model.onnx" --inputs "$d/inputs.npz" --golden "$d/outputs.npz" --rtol 1e-3 --atol 1e-4 --target "$t" "$@"
}
for t in $TARGETS; do
  check "small_cnn matches PyTorch [$t]" golden_model golden/small_cnn "$t"
done
# int8 small_cnn (QDQ, onnxruntime.quantization; golden/make_small_cnn_int8.py):
# within one output quantization step (1/255) of ONNX Runtime, on every target and
# on the dot-product targets beside their fallbacks (aarch64-dotprod under
# qemu-aarch64, whose default CPU has dotprod; x86_64-avx512-vnni where the CPU has it)
INT8_TARGETS=$TARGETS
[[ " $CROSS_TARGETS " == *" aarch64 "* ]] && INT8_TARGETS="$INT8_TARGETS aarch64-dotprod"
grep -qw avx512_vnni /proc/cpuinfo && INT8_TARGETS="$INT8_TARGETS x86_64-avx512-vnni"
grep -qw avx512_bf16 /proc/cpuinfo && INT8_TARGETS="$INT8_TARGETS x86_64-avx512-bf16" # VNNI too
grep -qw avx_vnni /proc/cpuinfo && INT8_TARGETS="$INT8_TARGETS x86_64-avx2-vnni"
for t in $INT8_TARGETS; do
  check "small_cnn_int8 matches ORT within one step [$t]" golden_model golden/small_cnn_int8 "$t" --rtol 0 --atol 0.0039216
done
# RNN/GRU/LSTM with constant weights (the float32 fast path of ops/rnn.c) at
# sizes that leave tails everywhere (golden/make_small_rnn.py, ONNX Runtime's
# outputs); ~3-6 s a target (mostly gcc), so: scalar, the widest host ISA and
# 4-wide NEON when its toolchain is among the targets
RNN_TARGETS="generic ${HOST_TARGETS##* }"
[[ " $CROSS_TARGETS " == *" aarch64 "* ]] && RNN_TARGETS="$RNN_TARGETS aarch64"
for t in $RNN_TARGETS; do
  check "small_rnn (LSTM/GRU/RNN, tails, sequence_lens) matches ONNX Runtime [$t]" \
    golden_model golden/small_rnn "$t" --elementwise
done
# the two directions of a bidirectional layer run on two threads at once, each
# on its own state: 2 threads and 3 (one idle)
for th in 2 3; do
  check "small_rnn with --threads $th (directions in parallel) matches ONNX Runtime" \
    golden_model golden/small_rnn native --elementwise --threads "$th"
done
# ONNX Runtime's dynamically quantized LSTM (DynamicQuantizeLSTM) on integer
# dot products (ops/rnn.c's int8 form; golden/make_small_qlstm.py): X and h
# quantized to uint8 as ORT does, so within float rounding of ORT's outputs
# (2e-4 of max|ref|; a float32 LSTM over the dequantized weights is ~1e-2
# away) on every target, the dot-product ones too, and on two threads
for t in $INT8_TARGETS; do
  check "small_qlstm (DynamicQuantizeLSTM, int8 dot products) matches ONNX Runtime [$t]" \
    RUN golden/small_qlstm/model.onnx --inputs golden/small_qlstm/inputs.npz \
    --golden golden/small_qlstm/outputs.npz --rtol 2e-4 --atol 1e-5 --target "$t"
done
check "small_qlstm with --threads 2 matches ONNX Runtime" \
  RUN golden/small_qlstm/model.onnx --inputs golden/small_qlstm/inputs.npz \
  --golden golden/small_qlstm/outputs.npz --rtol 2e-4 --atol 1e-5 --threads 2
# dynamic quantization at sizes that take ctvm's rewritten paths
# (golden/make_small_dyn.py): DynamicQuantizeLinear in chunks that threads
# share, ConvInteger behind it, and a MatMul -> Reshape -> bias -> GELU chain
# that pass sink_reshape fuses; uint8/int32 outputs within one step of
# ONNX Runtime, on every int8 target and on 2 and 3 threads
for t in $INT8_TARGETS; do
  check "small_dyn (chunked DynamicQuantizeLinear, GELU through a Reshape) matches ONNX Runtime [$t]" \
    RUN golden/small_dyn/model.onnx --inputs golden/small_dyn/inputs.npz \
    --golden golden/small_dyn/outputs.npz --rtol 0 --atol 1 --elementwise --target "$t"
done
for th in 2 3; do
  check "small_dyn with --threads $th matches ONNX Runtime" \
    RUN golden/small_dyn/model.onnx --inputs golden/small_dyn/inputs.npz \
    --golden golden/small_dyn/outputs.npz --rtol 0 --atol 1 --elementwise --threads "$th"
done
# the same with the input bound as a constant: folded by the loop interpreter
check "small_rnn folded at compile time (--bind input) matches ONNX Runtime" \
  RUN golden/small_rnn/model.onnx --bind input=golden/small_rnn/inputs.npz \
  --bind input_b1=golden/small_rnn/inputs.npz --bind input_b2=golden/small_rnn/inputs.npz --golden golden/small_rnn/outputs.npz \
  --rtol 1e-3 --atol 1e-4 --elementwise

CACHE=${CTVM_CACHE:-$HOME/.cache/ctvm/models}
SEED="resnet18 resnet50 mobilenet_v2 squeezenet1_1 shufflenet_v2_x1_0 resnet18_bn mobilenet_v2_bn"
if [ "${CTVM_SKIP_SEED:-0}" != 1 ]; then
  /usr/bin/python3 golden/export_models.py $SEED > "$T/export.log" 2>&1 || { cat "$T/export.log"; bad "export seed models"; }
  # off-host targets run under qemu (~5-30x slower): CTVM_CROSS_SEED picks the
  # models (default squeezenet1_1 mobilenet_v2; "$SEED" runs all of them)
  CROSS_SEED=${CTVM_CROSS_SEED:-squeezenet1_1 mobilenet_v2}
  for t in $TARGETS; do
    models=$SEED; [[ " $CROSS_TARGETS " == *" $t "* ]] && models=$CROSS_SEED
    for m in $models; do
      check "$m matches PyTorch [$t]" golden_model "$CACHE/$m" "$t"
    done
  done
  strict_seed() { # target
    $EMIT "$CACHE/squeezenet1_1/model.onnx" -o "$T/sq.c" --target "$1" &&
    $(stamp_cc "$T/sq.c") -std=c99 -Wall -Wextra -pedantic -Werror -O2 $(stamp_flags "$T/sq.c") -c "$T/sq.c" -o "$T/sq.o"
  }
  for t in $TARGETS; do
    check "squeezenet1_1's C is -std=c99 -pedantic -Wall -Wextra -Werror clean [$t]" strict_seed "$t"
  done
  # the team at several sizes on real networks: OpenMP's team of 3, 3 and 8
  # application threads (uneven shares of every parallel loop)
  check "squeezenet1_1 and mobilenet_v2: outputs bit-identical whichever thread runs a chunk" \
    bash tests/team_identical.sh "$CACHE/squeezenet1_1" "$CACHE/mobilenet_v2"
  for m in squeezenet1_1 resnet50; do
    check "$m on an OpenMP team of 3 matches PyTorch" golden_model "$CACHE/$m" native --threads 3
    for th in 3 8; do
      check "$m on $th application threads matches PyTorch" golden_model "$CACHE/$m" native --threads 2 --app-threads "$th"
    done
  done
fi

# --- models users bring (issue 9) against PyTorch -------------------------------
# golden/export_zoo.py: a torch.nn.TransformerEncoder (opset 14), a
# paddle2onnx-style CNN (opset 11, Resize, Pow, batch dim stored as -1, sized
# by --input-shapes) on every host target, and densenet121 (Pad) on the
# widest host ISA only (~40 s). vit_b_16 is exported by hand (bench/).
if [ "${CTVM_SKIP_SEED:-0}" != 1 ]; then
  if /usr/bin/python3 golden/export_zoo.py transformer paddle_style densenet121 > "$T/zoo.log" 2>&1; then
    zoo_model() { # name target
      local d=$CACHE/extra/$1 s; s=$(cat "$d/shapes.txt")
      golden_model "$d" "$2" ${s:+--input-shapes "$s"}
    }
    for t in $HOST_TARGETS; do
      for m in transformer paddle_style; do check "zoo $m matches PyTorch [$t]" zoo_model $m "$t"; done
    done
    check "zoo densenet121 matches PyTorch [${HOST_TARGETS##* }]" zoo_model densenet121 "${HOST_TARGETS##* }"
  else
    cat "$T/zoo.log"; bad "export zoo models"
  fi
fi

# --- single operators against the ONNX conformance data ------------------------
# A fixed list of Debian libonnx-testdata cases (tests/conformance_cases.txt),
# fed exactly as the suite gives them, on generic and the cross targets (under
# qemu); the whole suites run on the native target in tests/conformance/ci.sh,
# and the x86 vector paths are covered by the models and odd shapes.
ND=/usr/share/libonnx-testdata/data/node
# An input that decides a shape is bound (--bind) when ctvm asks for it, as
# tests/conformance/conformance.py does; every other input is fed at run time.
input_index() { # model name: the position of graph input NAME among the non-initializers
  /usr/bin/python3 -c 'import onnx, sys
m = onnx.load(sys.argv[1]); init = {t.name for t in m.graph.initializer}
print([v.name for v in m.graph.input if v.name not in init].index(sys.argv[2]))' "$1" "$2"
}
conformance() { # case
  local c=$ND/$1 outs=() args ins out rc name f j
  local -A bound=()
  for f in "$c"/test_data_set_0/output_*.pb; do outs+=("$f"); done
  while true; do
    args=() ins=()
    for ((j = 0; ; j++)); do
      f=$c/test_data_set_0/input_$j.pb
      [ -e "$f" ] || break
      if [ -n "${bound[$j]:-}" ]; then args+=(--bind "${bound[$j]}=$f"); else ins+=("$f"); fi
    done
    [ ${#ins[@]} -eq 0 ] || args+=(--inputs "${ins[@]}")
    out=$(RUN "$c/model.onnx" "${args[@]}" --golden "${outs[@]}" --rtol 1e-4 --atol 1e-5 --target "$TGT" 2>&1); rc=$?
    name=$(grep -o -- '--bind [^= ]*=FILE' <<< "$out" | head -1 | sed 's/^--bind //; s/=FILE$//')
    if [ $rc -ne 3 ] || [ -z "$name" ]; then echo "$out"; return $rc; fi
    j=$(input_index "$c/model.onnx" "$name") || return 1
    [ -z "${bound[$j]:-}" ] || { echo "$out"; return $rc; }
    bound[$j]=$name
  done
}
CONF_TARGETS=generic; [[ " $HOST_TARGETS " == *" generic "* ]] || CONF_TARGETS=
for TGT in $CONF_TARGETS $CROSS_TARGETS; do
  while read -r case; do
    [ -z "$case" ] || [ "${case#\#}" != "$case" ] && continue
    check "onnx $case [$TGT]" conformance "$case"
  done < tests/conformance_cases.txt
done

# --- odd shapes against PyTorch, for every target -------------------------------
# tests/odd_shapes.py: small models whose channel counts, widths, pads, strides,
# groups and GEMM sizes fall off any vector/tile grid, with torch references;
# each case's tolerance is in cases.txt. Run for every target in TARGETS.
odd() { # target case rtol atol
  local d=$T/odd/$2
  RUN "$d/model.onnx" --inputs "$d/inputs.npz" --golden "$d/outputs.npz" --rtol "$3" --atol "$4" --target "$1" < /dev/null
}
if /usr/bin/python3 tests/odd_shapes.py "$T/odd" > "$T/odd.log" 2>&1; then
  for t in $TARGETS; do
    while read -r c r a; do
      check "odd $t $c" odd "$t" "$c" "$r" "$a"
    done < "$T/odd/cases.txt"
  done
  # the Winograd cases get the variant their names say (native SIMD target):
  # F(4x4,3x3) has 36 products, F(2x2,3x3) 16
  wino_kind() { # case products
    $EMIT "$T/odd/$1/model.onnx" -o "$T/wk.c" --dump-after winograd | grep 'ctvm.WinogradConv' > "$T/wk.txt" &&
    [ -s "$T/wk.txt" ] && ! grep -v "_wino\[$2," "$T/wk.txt"
  }
  for c in $(grep -o '^wino[0-9]*_[^ ]*' "$T/odd/cases.txt"); do
    n=16; [[ $c == wino4_* ]] && n=36
    check "odd $c: pass winograd makes $n-product convs" wino_kind "$c" "$n"
  done
else
  cat "$T/odd.log"; bad "generate odd-shape cases (tests/odd_shapes.py)"
fi

# --- data-dependent shapes through operators, against ONNX Runtime ------------
# tests/dyn_shapes.py: NonZero -> Transpose -> GatherND, TopK with a run-time
# k, Concat of dyn pieces, Shape -> ConstantOfShape, If with a run-time
# condition, NMS on dyn boxes; each also with a count of 0 (issue 10).
dyn() { # case rtol atol
  local d=$T/dyn/$1
  RUN "$d/model.onnx" --inputs "$d/inputs.npz" --golden "$d/outputs.npz" --rtol "$2" --atol "$3" < /dev/null
}
# the cases need onnx and onnxruntime: the bench venv (Debian's onnx, pip
# onnxruntime), made here when missing, as zoo/zoo.sh and bench/ make it
VENV_PY=${CTVM_BENCH_VENV:-$HOME/.cache/ctvm/bench-venv}/bin/python
[ -x "$VENV_PY" ] || BENCH_NO_TVM=1 bash bench/run.sh --setup-only > "$T/venv.log" 2>&1 || cat "$T/venv.log"
if "$VENV_PY" tests/dyn_shapes.py "$T/dyn" > "$T/dyn.log" 2>&1; then
  while read -r c r a; do
    check "dyn $c" dyn "$c" "$r" "$a"
  done < "$T/dyn/cases.txt"
else
  cat "$T/dyn.log"; bad "generate dyn-shape cases (tests/dyn_shapes.py)"
fi

# --- long attention as one kernel (pass match_sdpa, ctvm.Sdpa) vs ONNX Runtime ---
sdpa() { # case target threads: matches, and the generated C calls the fused kernel
  local d=$T/attn/$1 k=$T/attn/$1-$2-$3
  RUN "$d/model.onnx" --inputs "$d/inputs.npz" --golden "$d/outputs.npz" --target "$2" --threads "$3" --keep "$k" < /dev/null &&
    grep -q 'ctvm_k_sdpa(' "$k/model.c"
}
if "$VENV_PY" tests/attention_cases.py "$T/attn" > "$T/attn.log" 2>&1; then
  while read -r c; do
    check "sdpa $c [native]" sdpa "$c" native 1
    check "sdpa $c [generic, 2 threads]" sdpa "$c" generic 2
  done < "$T/attn/cases.txt"
else
  cat "$T/attn.log"; bad "generate attention cases (tests/attention_cases.py)"
fi

# --- the generated C -----------------------------------------------------------
strict_c() { # target [threads]
  local f
  $EMIT golden/small_cnn/model.onnx -o "$T/s.c" --header "$T/s.h" --prefix small --target "$1" --threads "${2:-1}" &&
  f=$(stamp_flags "$T/s.c") && cc=$(stamp_cc "$T/s.c") &&
  $cc -std=c99 -Wall -Wextra -pedantic -Werror -O2 $f -c "$T/s.c" -o "$T/s.o" &&
  $cc -std=c99 -Wall -Wextra -pedantic -Werror -DCTVM_MAIN -DCTVM_PROFILE -O0 $f -c "$T/s.c" -o "$T/s_main.o" &&
  gcc -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -x c "$T/s.h"
}
for t in $TARGETS; do
  check "generated C is -std=c99 -pedantic -Wall -Wextra -Werror clean [$t]" strict_c "$t"
  check "generated C with --threads 2 is -std=c99 -pedantic -Wall -Wextra -Werror clean [$t]" strict_c "$t" 2
done
openmp_c() { # --threads 2 under -fopenmp: warning-free and still correct
  $EMIT golden/small_cnn/model.onnx -o "$T/o.c" --threads 2 &&
  gcc -std=c99 -Wall -Wextra -pedantic -Werror -O2 -march=native -fopenmp -c "$T/o.c" -o "$T/o.o" &&
  RUN golden/small_cnn/model.onnx --inputs golden/small_cnn/inputs.npz --golden golden/small_cnn/outputs.npz --threads 2
}
check "--threads 2 builds warning-free under -fopenmp and matches PyTorch" openmp_c
# One parallel region per inference (templates/ctvm_team.h): the same file on
# OpenMP's team of 3 and 8 and on 1, 2, 3 and 8 threads the harness owns
# (NAME_run_thread, pthreads, the model's C11-atomics barrier or a pthread
# barrier passed in); a share of a parallel loop dropped or a barrier left out
# fails these
for th in 3 8; do
  check "--threads $th (OpenMP team) matches PyTorch" \
    RUN golden/small_cnn/model.onnx --inputs golden/small_cnn/inputs.npz --golden golden/small_cnn/outputs.npz --threads "$th"
done
for th in 1 2 3 8; do
  check "NAME_run_thread on $th application threads matches PyTorch" \
    RUN golden/small_cnn/model.onnx --inputs golden/small_cnn/inputs.npz --golden golden/small_cnn/outputs.npz --threads 2 --app-threads "$th"
done
check "NAME_run_thread with the caller's barrier (pthread) on 3 threads matches PyTorch" \
  RUN golden/small_cnn/model.onnx --inputs golden/small_cnn/inputs.npz --golden golden/small_cnn/outputs.npz --app-threads 3 --app-barrier
check "small_rnn on 3 application threads matches ONNX Runtime" \
  golden_model golden/small_rnn native --elementwise --app-threads 3
# chunks are taken dynamically: the same bits on 1 thread, OpenMP teams of 2
# and 3, 2 and 3 application threads, and threads that start late in turn
check "small_cnn and small_rnn: outputs bit-identical whichever thread runs a chunk" \
  bash tests/team_identical.sh golden/small_cnn golden/small_rnn
team_c() { # the threaded file without OpenMP: C11 (own barrier) and C99 -pedantic (__atomic builtins)
  $EMIT golden/small_cnn/model.onnx -o "$T/tm.c" --threads 2 &&
  gcc -std=c11 -Wall -Wextra -pedantic -Werror -O2 -march=native -c "$T/tm.c" -o "$T/tm.o" &&
  gcc -std=c99 -Wall -Wextra -pedantic -Werror -O2 -march=native -DCTVM_MAIN -DCTVM_MAIN_TEAM=3 -pthread -c "$T/tm.c" -o "$T/tm.o"
}
check "a --threads file builds warning-free without OpenMP (C11 and C99 -pedantic)" team_c
long_profile() { # ctvm-run --profile reads a 1000-kernel table (> 100 KB) to the end
  /usr/bin/python3 tests/long_profile.py "$T/longprof" &&
  RUN "$T/longprof/model.onnx" --inputs "$T/longprof/x.npy" --profile > "$T/longprof/out" &&
  [ "$(grep -c '^ctvm-prof:.*layer_' "$T/longprof/out")" -ge 1000 ]
}
check "ctvm-run --profile prints every kernel of a 1000-kernel model" long_profile

no_alloc_no_stdio() {
  $EMIT golden/small_cnn/model.onnx -o "$T/n.c" && gcc -O2 -march=native -c "$T/n.c" -o "$T/n.o" || return 1
  local undef; undef=$(nm -u "$T/n.o" | awk '{print $2}')
  echo "undefined symbols: $undef"
  # allowed: libm, and the mem* functions gcc may call even when freestanding
  for s in $undef; do
    case "$s" in expf|sqrtf|tanhf|fabsf|logf|powf|erff|memcpy|memmove|memset) ;; *) echo "unexpected symbol $s"; return 1;; esac
  done
  ! grep -Eq '\b(malloc|calloc|realloc|free|printf|fopen|fwrite|puts)\s*\(' <(sed '/#ifdef CTVM_MAIN/,$d' "$T/n.c")
}
check "generated code calls no malloc/free and no stdio" no_alloc_no_stdio

two_models_link() { # two prefixes link into one program
  $EMIT golden/small_cnn/model.onnx -o "$T/a.c" --prefix net_a &&
  $EMIT golden/small_cnn/model.onnx -o "$T/b.c" --prefix net_b &&
  printf 'int net_a_run(const float*, float*);\nint net_b_run(const float*, float*);\nstatic float x[3*32*32], y[10];\nint main(void){return net_a_run(x,y)|net_b_run(x,y);}\n' > "$T/m.c" &&
  gcc -O1 -march=native -o "$T/ab" "$T/m.c" "$T/a.c" "$T/b.c" -lm && "$T/ab"
}
check "two models with different prefixes link into one program" two_models_link

deterministic() {
  $EMIT golden/small_cnn/model.onnx -o "$T/d.c" && cp "$T/d.c" "$T/d1.c" &&
  $EMIT golden/small_cnn/model.onnx -o "$T/d.c" && cmp "$T/d.c" "$T/d1.c"
}
check "same model and flags give byte-identical output" deterministic

reentrant() { # the _ws form with a caller workspace gives the same outputs
  $EMIT golden/small_cnn/model.onnx -o "$T/r.c" --header "$T/r.h" || return 1
  cat > "$T/rm.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "r.h"
static float x[model_INPUT0_SIZE], y1[model_OUTPUT0_SIZE], y2[model_OUTPUT0_SIZE];
static float ws[model_WORKSPACE_SIZE / 4 + 1];
int main(void) {
    for (int i = 0; i < model_INPUT0_SIZE; i++) x[i] = (float)((i * 7919) % 101) / 50.0f - 1.0f;
    if (model_run(x, y1) || model_run_ws(ws, x, y2)) return 1;
    if (model_run_ws(NULL, x, y2) != 1 && model_WORKSPACE_SIZE > 0) return 2;
    if (memcmp(y1, y2, sizeof y1)) return 3;
    printf("workspace %d bytes\n", (int)model_WORKSPACE_SIZE);
    return 0;
}
C
  gcc -O1 -march=native -I"$T" -o "$T/rm" "$T/rm.c" "$T/r.c" -lm && "$T/rm"
}
check "reentrant form with a caller workspace matches NAME_run" reentrant

# --- portability: clang, no GCC extensions, UBSan, a Cortex-M7 object -------------
G=golden/small_cnn
clang_model() { # target: built by clang, warning-free under -pedantic -Werror, matches PyTorch
  local triple=; [ "${TCC[$1]}" = gcc ] || triple="--target=${TCC[$1]%-gcc}"  # aarch64-linux-gnu-gcc -> aarch64-linux-gnu
  golden_model $G "$1" --cc "clang $triple" --cflags "-O2 -Wall -Wextra -pedantic -Werror"
}
for t in $TARGETS; do
  check "small_cnn built by clang -std=c99 -pedantic -Wall -Wextra -Werror matches PyTorch [$t]" clang_model "$t"
done
no_extensions() { # model: the generic file is ISO C99 for gcc and clang, with no GCC extension
  $EMIT "$1" -o "$T/x.c" --target generic || return 1
  if grep -nE '__attribute__|__builtin|__extension__|__typeof__|\btypeof\b|\basm\b|__asm__|__int128|#pragma GCC' "$T/x.c"; then
    echo "GCC extension above"; return 1
  fi
  gcc -std=c99 -pedantic-errors -Wall -Wextra -Werror -O2 -c "$T/x.c" -o "$T/x.o" &&
  clang -std=c99 -pedantic-errors -Wall -Wextra -Werror -O2 -c "$T/x.c" -o "$T/x.o"
}
check "generic C (small_cnn) uses no GCC extension; gcc and clang -std=c99 -pedantic-errors" no_extensions $G/model.onnx
[ "${CTVM_SKIP_SEED:-0}" = 1 ] ||
  check "generic C (squeezenet1_1) uses no GCC extension; gcc and clang -std=c99 -pedantic-errors" no_extensions "$CACHE/squeezenet1_1/model.onnx"

# --- the default output builds as users type it (issue 10) ---------------------
# An x86 or armv7-neon file built without its ISA flags enables the ISA itself
# (#pragma GCC target / #pragma clang attribute in templates/ctvm_vec_*.h): a
# plain `gcc -O2 -c` or `clang -O2 -c`, with no -m flag, builds it, and the
# harness build (ctvm-run --no-isa-flags: -O2 -std=c99 -DCTVM_MAIN, no -m flag)
# matches PyTorch; so does --threads 2 under gcc -fopenmp and clang -fopenmp
# (the file's one OpenMP region only calls functions with the attribute).
# Where the ISA cannot be had (another architecture's compiler) the file stops
# with its #error, first.
plain_c() { # target cc [ctvm-emit options]: emitted, then `cc -O2 -c` with no flags
  local t=$1 cc=$2; shift 2
  $EMIT $G/model.onnx -o "$T/p.c" ${t:+--target "$t"} "$@" || return 1
  grep -m1 '^ \* Build: ' "$T/p.c"
  grep -q '^ \* Build: [^ ]* -O2 -c this_file\.c' "$T/p.c" || { echo "stamp names flags"; return 1; }
  $cc -O2 -c "$T/p.c" -o "$T/p.o"
}
plain_run() { # target cc [ctvm-run options]: built with -O2 only, run, compared
  local t=$1 cc=$2; shift 2
  golden_model $G "$t" --cc "$cc" --no-isa-flags "$@"
}
first_error() { # file cc flags message: the first error is the file's #error message
  local f=$1 cc=$2 flags=$3 want=$4 log
  if log=$($cc -O2 $flags -c "$f" -o "$T/e.o" 2>&1); then echo "built"; return 1; fi
  echo "$log" | grep -m1 'error' | tee /dev/stderr | grep -qF -- "$want"
}
x86_elsewhere() { # target: its file under aarch64-linux-gnu-gcc stops with the #error
  $EMIT $G/model.onnx -o "$T/x86.c" --target "$1" &&
  first_error "$T/x86.c" aarch64-linux-gnu-gcc "" "ctvm: generated for target $1: this compiler does not build x86 code"
}
check "default (native) output: plain gcc -O2 -c" plain_c "" gcc
check "default (native) output: plain clang -O2 -c" plain_c "" clang
# the VNNI targets enable VNNI themselves (CTVM_EXT_*): a plain cc -O2 builds
# their int8 file with vpdpbusd; native picks them on a VNNI CPU
plain_dot() { # target cc: small_cnn_int8 for target built by cc -O2 with no flags has vpdpbusd
  $EMIT golden/small_cnn_int8/model.onnx -o "$T/q.c" ${1:+--target "$1"} || return 1
  grep -q '^ \* Build: [^ ]* -O2 -c this_file\.c' "$T/q.c" || { echo "stamp names flags"; return 1; }
  $2 -O2 -c "$T/q.c" -o "$T/q.o" && objdump -d "$T/q.o" | grep -q vpdpbusd
}
for t in x86_64-avx512-vnni x86_64-avx2-vnni; do
  check "plain gcc -O2 -c builds the int8 $t file with vpdpbusd" plain_dot "$t" gcc
  check "plain clang -O2 -c builds the int8 $t file with vpdpbusd" plain_dot "$t" clang
done
if grep -qw avx512_vnni /proc/cpuinfo || grep -qw avx_vnni /proc/cpuinfo; then
  check "default (native) int8 output on this VNNI CPU: plain gcc -O2 -c uses vpdpbusd" plain_dot "" gcc
fi
# the BF16 target enables AVX-512 + VNNI + BF16 itself: a plain cc -O2 builds a
# bfloat16 x bfloat16 product with vdpbf16ps (tests/quant/bf16_check.sh checks the numbers)
plain_bf16() { # cc
  /usr/bin/python3 tests/quant/bf16_models.py "$T/bf16" >/dev/null &&
    $EMIT "$T/bf16/gemm.onnx" -o "$T/b.c" --target x86_64-avx512-bf16 &&
    grep -q '^ \* Build: [^ ]* -O2 -c this_file\.c' "$T/b.c" && $1 -O2 -c "$T/b.c" -o "$T/b.o" &&
    objdump -d "$T/b.o" | grep -q vdpbf16ps
}
check "plain gcc -O2 -c builds the bfloat16 x86_64-avx512-bf16 file with vdpbf16ps" plain_bf16 gcc
check "plain clang -O2 -c builds the bfloat16 x86_64-avx512-bf16 file with vdpbf16ps" plain_bf16 clang
if grep -qw avx512_vnni /proc/cpuinfo; then
  check "small_cnn_int8 built by gcc -O2 without ISA flags matches ORT [x86_64-avx512-vnni]" \
    golden_model golden/small_cnn_int8 x86_64-avx512-vnni --rtol 0 --atol 0.0039216 --no-isa-flags
fi
for t in $HOST_TARGETS; do
  [[ $t == x86_64-* ]] || continue
  check "plain gcc -O2 -c builds the $t file" plain_c "$t" gcc
  check "plain clang -O2 -c builds the $t file" plain_c "$t" clang
  check "small_cnn built by gcc -O2 without ISA flags matches PyTorch [$t]" plain_run "$t" gcc
  check "small_cnn built by clang -O2 without ISA flags matches PyTorch [$t]" plain_run "$t" clang
  check "--threads 2: plain gcc -O2 -fopenmp -c builds the $t file" plain_c "$t" "gcc -fopenmp" --threads 2
  check "--threads 2 built by gcc -O2 -fopenmp without ISA flags matches PyTorch [$t]" plain_run "$t" gcc --threads 2
  check "--threads 2: plain clang -O2 -fopenmp -c builds the $t file" plain_c "$t" "clang -fopenmp" --threads 2
  check "--threads 2 built by clang -O2 -fopenmp without ISA flags matches PyTorch [$t]" plain_run "$t" clang --threads 2
done
if command -v aarch64-linux-gnu-gcc > /dev/null; then
  for t in x86_64-sse4 x86_64-avx2 x86_64-avx512; do
    check "$t file under aarch64-linux-gnu-gcc stops with its #error" x86_elsewhere "$t"
  done
fi
for t in $CROSS_TARGETS; do
  case $t in aarch64|armv7-neon) ;; *) continue;; esac
  check "plain ${TCC[$t]} -O2 -c builds the $t file" plain_c "$t" "${TCC[$t]}"
  check "small_cnn built by ${TCC[$t]} -O2 without ISA flags matches PyTorch [$t]" plain_run "$t" "${TCC[$t]}"
done

# Undefined behaviour, misaligned access: the x86 targets under UBSan (a full
# e2e run under it: CTVM_CFLAGS as above, see README).
UBSAN="-O1 -g -fsanitize=undefined,alignment -fno-sanitize-recover=all"
ubsan() { golden_model "$1" "$2" --cflags "$UBSAN"; } # model-dir target
for t in $HOST_TARGETS; do
  check "small_cnn under -fsanitize=undefined,alignment matches PyTorch [$t]" ubsan $G "$t"
  [ "${CTVM_SKIP_SEED:-0}" = 1 ] || for m in squeezenet1_1 mobilenet_v2; do
    check "$m under -fsanitize=undefined,alignment matches PyTorch [$t]" ubsan "$CACHE/$m" "$t"
  done
done

# Cortex-M7: arm-none-eabi-gcc -mcpu=cortex-m7 -mthumb -mfloat-abi=hard; every
# undefined symbol of the object is in libgcc or libm (tools/mcu_size.sh).
mcu() { # expected-regex [ctvm-emit options]
  local want=$1; shift
  tools/mcu_size.sh $G/model.onnx "$@" > "$T/mcu.log" 2>&1; local rc=$?
  cat "$T/mcu.log"
  [ $rc -eq 0 ] && grep -Eq "$want" "$T/mcu.log"
}
check "cortex-m7 object needs only libgcc/libm; flash and RAM reported" mcu '^RAM: +[1-9][0-9]* bytes'
check "cortex-m7: --weights-section/--arena-section place weights and arena" \
  mcu '^ +\.bss\.ctvm_arena +NOBITS +WA +[1-9]' --weights-section .ctvm_weights --arena-section .bss.ctvm_arena
check "cortex-m7: the weights section is read-only data" \
  mcu '^ +\.ctvm_weights +PROGBITS +A +[1-9]' --weights-section .ctvm_weights
check "cortex-m7: --arena caller leaves no arena in RAM" mcu '^RAM: +0 bytes.*' --arena caller
# ... and the firmware runs on an emulated Cortex-M7 (qemu-system-arm mps2-an500)
check "cortex-m7: small_cnn runs on qemu mps2-an500 and matches PyTorch" bash tests/mcu/run_m7.sh
check "cortex-m7: --arena caller --weights-section runs on qemu mps2-an500 and matches PyTorch" \
  bash tests/mcu/run_m7.sh --arena caller --weights-section .ctvm_weights
check "cortex-m7: int8 small_cnn (QDQ) runs on qemu mps2-an500, matches ORT within one step, needs <= 0.5x the float32 flash and RAM, no soft double, SMLADs" \
  env CTVM_M7_INT8_STRICT=1 bash tests/mcu/run_m7.sh --int8

# --- bad input: clear error, non-zero exit, no output file -----------------------
refuse() { # name file expected-text [extra args]
  local f=$1 want=$2; shift 2
  rm -f "$T/bad.c"
  if $EMIT "$f" -o "$T/bad.c" "$@" 2> "$T/err"; then echo "accepted $f"; return 1; fi
  cat "$T/err"
  [ ! -e "$T/bad.c" ] || { echo "left an output file"; return 1; }
  ls "$T" | grep -q '^bad\.c\.tmp' && { echo "left a temp file"; return 1; } # bad.c.tmp-XXXXXX
  grep -q -- "$want" "$T/err"
}
head -c 3000 golden/small_cnn/model.onnx > "$T/truncated.onnx"
check "truncated model refused" refuse "$T/truncated.onnx" "ctvm-emit: $T/truncated.onnx"
printf 'this is not an onnx model\n' > "$T/text.onnx"
check "non-ONNX file refused" refuse "$T/text.onnx" "ctvm-emit: $T/text.onnx"
check "missing file refused" refuse "$T/nope.onnx" "nope.onnx"
/usr/bin/python3 tests/make_bad_models.py "$T" > "$T/mk.log" 2>&1 || cat "$T/mk.log"
check "unsupported op refused, naming the node" refuse "$T/unsupported.onnx" "node 'weird_node' (FancyOp)"
check "symbolic input without --input-shapes refused" refuse "$T/symbolic.onnx" "input-shapes"
check "section name that is not [A-Za-z0-9._\$] refused" refuse golden/small_cnn/model.onnx "a section name is" --weights-section 'x") int y; ("'
check "--arena-section with --arena caller refused" refuse golden/small_cnn/model.onnx "removes" --arena caller --arena-section .bss.a
check "unknown target refused" refuse golden/small_cnn/model.onnx "unknown target 'cortex-m0'" --target cortex-m0
symbolic_ok() { $EMIT "$T/symbolic.onnx" -o "$T/sym.c" --input-shapes 'x:[2,3]'; }
check "symbolic input accepted with --input-shapes" symbolic_ok
check "--input-shapes contradicting a fixed dim refused" refuse "$T/symbolic.onnx" "fixes dim 1" --input-shapes 'x:[2,4]'
# --bind: a shape-deciding graph input fixed from its .pb file; not passed at run time
RS=$ND/test_reshape_reordered_all_dims/test_data_set_0
bind_ok() { RUN $ND/test_reshape_reordered_all_dims/model.onnx --bind shape=$RS/input_1.pb \
  --inputs $RS/input_0.pb --golden $RS/output_0.pb --elementwise --rtol 1e-3 --atol 1e-7; }
check "--bind makes a Reshape shape input a constant" bind_ok
# --elementwise: NaN where the reference has NaN is equal (pow of negative bases)
PW=/usr/share/libonnx-testdata/data/pytorch-operator/test_operator_pow
nan_ok() { RUN $PW/model.onnx --inputs $PW/test_data_set_0/input_*.pb --golden $PW/test_data_set_0/output_0.pb --elementwise --rtol 1e-3 --atol 1e-7; }
check "--elementwise takes NaN == NaN" nan_ok
check "--bind of a file of the wrong type refused, naming the input" refuse \
  $ND/test_reshape_reordered_all_dims/model.onnx "input 'shape' is int64, the file holds float32" --bind shape=$RS/input_0.pb
check "--bind of a name that is no input refused" refuse \
  $ND/test_reshape_reordered_all_dims/model.onnx "'shap', which is not an input" --bind shap=$RS/input_1.pb
# hostile files (issue 20): limits checked at load, named in the error
check "input dims of 2^32 refused, naming the input and the limit" refuse "$T/huge_dims.onnx" \
  "input 'x' declares dimension 4294967296 at axis 0, above ctvm's limit of 2147483647"
check "a -5 dim named as a negative dimension" refuse "$T/neg_dim.onnx" "input 'x' declares a negative dimension -5 at axis 0"
check "graph output listed twice refused" refuse "$T/dup_output.onnx" "graph output 'y' is listed twice"
check "graph output that is the input refused with the reason" refuse "$T/output_is_input.onnx" "graph output 'x' is the graph input 'x' itself"
check "graph without nodes refused with the reason" refuse "$T/identity.onnx" "the graph has no nodes: its outputs are its inputs"
check "If bodies nested 20 deep refused" refuse "$T/deep_if.onnx" "nested more than 16 deep (ctvm's limit)"
check "protobuf nested 30000 deep refused before decoding (was SIGSEGV)" refuse "$T/deep_proto.onnx" "nested more than 100 deep (ctvm's limit"
check "2^20+1 nodes refused before decoding" refuse "$T/many_nodes.onnx" "'node' of a onnx.GraphProto has more than 1048576 entries"
refuse20() { local EMIT="timeout 20 $EMIT"; refuse "$@"; } # a FIFO must not block: fail, not hang
mkfifo "$T/fifo.onnx" "$T/fifo.bin"
check "a FIFO as the model file refused, not waited on" refuse20 "$T/fifo.onnx" "fifo.onnx' is not a regular file"
check "a FIFO as external data refused, not waited on" refuse20 "$T/fifo_ext.onnx" "fifo.bin' is not a regular file"

# --- output paths: only a regular file or a new one is written (frontend/out_file.h) ---
O=$T/out; mkdir -p "$O"
no_temp() { ! compgen -G "$O/*.tmp*" > /dev/null || { echo "left a temp file:"; ls "$O"; return 1; }; }
out_refused() { # path test-op want [ctvm-emit args]: refused, path still passes `test op`, no temp left
  local p=$1 op=$2 want=$3; shift 3
  if $EMIT golden/small_cnn/model.onnx -o "$p" "$@" 2> "$T/err"; then echo "accepted -o $p"; return 1; fi
  cat "$T/err"; grep -q -- "$want" "$T/err" || return 1
  test "$op" "$p" || { echo "$p is no longer what it was:"; ls -l "$p"; return 1; }
  no_temp
}
mkdir "$O/empty"
check "-o of an empty directory refused, the directory kept" out_refused "$O/empty" -d "cannot write '$O/empty': it is a directory"
mknod "$O/null" c 1 3 2> /dev/null && # as root (CI); never the real /dev/null
  check "-o of a character device refused, the device kept" out_refused "$O/null" -c "cannot write '$O/null': it is a character device"
mkfifo "$O/fifo"
check "-o of a FIFO refused, the FIFO kept" out_refused "$O/fifo" -p "cannot write '$O/fifo': it is a FIFO"
echo "the user's file" > "$O/real.c"; ln -s real.c "$O/link.c"
link_refused() { out_refused "$O/link.c" -L "it is a symbolic link" && grep -qx "the user's file" "$O/real.c"; }
check "-o of a symbolic link refused, the file it points to unchanged" link_refused
header_fails() { # model.c written earlier stays as it was when model.h cannot be written
  $EMIT golden/small_cnn/model.onnx -o "$O/keep.c" && cp "$O/keep.c" "$O/keep.prev" && mkdir -p "$O/hdir" &&
  out_refused "$O/keep.c" -f "cannot write '$O/hdir': it is a directory" --header "$O/hdir" --prefix other &&
  cmp "$O/keep.c" "$O/keep.prev" && test -d "$O/hdir"
}
check "an existing model.c is unchanged when --header cannot be written" header_fails
same_file() { echo previous > "$O/same.c"; out_refused "$O/same.c" -f "name the same file" --header "$O/./same.c" &&
  grep -qx previous "$O/same.c"; }
check "-o and --header naming the same file refused" same_file
run_output_link() { # ctvm-run --output: a symbolic link refused, the file it points to unchanged
  ln -sf real.c "$O/out.npz"
  if RUN $G/model.onnx --inputs $G/inputs.npz --output "$O/out.npz" 2> "$T/err"; then echo accepted; return 1; fi
  cat "$T/err"; grep -q "cannot write '$O/out.npz': it is a symbolic link" "$T/err" && test -L "$O/out.npz" &&
    grep -qx "the user's file" "$O/real.c" && no_temp
}
check "ctvm-run --output of a symbolic link refused, the file it points to unchanged" run_output_link
tune_fifo() { # ctvm-tune -o: appended to, but only a regular file; a FIFO neither read (it hung) nor written
  if timeout 20 $BIN/ctvm-tune $G/model.onnx -o "$O/fifo" 2> "$T/err"; then echo accepted; return 1; fi
  cat "$T/err"; grep -q "cannot write '$O/fifo': it is a FIFO" "$T/err" && test -p "$O/fifo"
}
check "ctvm-tune -o of a FIFO refused at once" tune_fifo
killed_mid_emit() { # SIG: a run killed while it writes leaves no temp file, no header, model.c as it was
  rm -f "$O"/k.*; echo previous > "$O/k.c"
  env --default-signal=INT,TERM $EMIT "$T/big.onnx" -o "$O/k.c" --header "$O/k.h" & local pid=$! i
  for i in $(seq 1000); do compgen -G "$O/k.c.tmp*" > /dev/null && break; sleep 0.01; done
  kill -STOP $pid # held while a temp file exists: the signal arrives mid-emission
  compgen -G "$O/k.c.tmp*" > /dev/null || { kill -CONT $pid; wait $pid; echo "no temp file seen: emission too fast?"; return 1; }
  kill -"$1" $pid; kill -CONT $pid; wait $pid; local st=$?
  [ $st -eq $((128 + $(kill -l "$1"))) ] || { echo "exit status $st, not killed by SIG$1"; return 1; }
  grep -qx previous "$O/k.c" && [ ! -e "$O/k.h" ] && no_temp
}
check "SIGTERM while emitting a 32 MB model: no temp file, no header, model.c unchanged" killed_mid_emit TERM
check "SIGINT while emitting a 32 MB model: no temp file, no header, model.c unchanged" killed_mid_emit INT
# sizes: folding capped (default 1 GiB + 8x the model's constants, --max-fold-bytes),
# no value past 2^31-1 elements; refused in little memory (no ulimit -v under ASan,
# whose shadow memory it would forbid)
small_mem() { ( grep -qa __asan_init "$EMIT" || ulimit -v 1000000; "$@" ); }
check "99-byte Tile folding to 4 GiB refused in little memory, naming node, bytes and limit" small_mem refuse \
  "$T/fold_tile.onnx" "node 'big_tile' (Tile): its folded constants take 4294967296 bytes.*over the limit of 1073741920 bytes.*--max-fold-bytes"
check "ConstantOfShape folding to 4 GiB refused in little memory, naming node and limit" small_mem refuse \
  "$T/fold_fill.onnx" "node 'big_fill' (ConstantOfShape): its folded constants take 4294967296 bytes.*over the limit"
check "ConstantOfShape of 4 TB refused in little memory, naming node and the element limit" small_mem refuse \
  "$T/fold_fill_4tb.onnx" "node 'huge_fill' (ConstantOfShape): value 'y' of shape \[1048576,1048576\] has 1099511627776 elements.*at most 2147483647"
check "--max-fold-bytes under what a valid model folds refused, naming node and option" refuse \
  "$T/fold_16m.onnx" "node 'tile16m' (Tile): its folded constants take 16777216 bytes.*set by --max-fold-bytes" --max-fold-bytes 8M
check "a Loop copying its 64 KB initializer 4096 times refused by --max-fold-bytes 16M, naming the Loop" refuse \
  "$T/loop_copies.onnx" "node 'unrolled' (Loop): its folded constants take 65536 bytes.*limit of 16777216 bytes" --max-fold-bytes 16M
check "a kernel of over 256 buffers refused (read past KernelParams under UBSan before)" refuse \
  "$T/loop_copies.onnx" "node 'unrolled#0:add_w' (Add): kernel needs more than 256 buffers"
fold_ok() { $EMIT "$T/fold_16m.onnx" -o "$T/fold.c" "$@" && [ -s "$T/fold.c" ]; }
check "a model folding 16 MB accepted by default and with --max-fold-bytes 17M" \
  eval 'fold_ok && fold_ok --max-fold-bytes 17M'
check "an element count overflowing int64 through inference refused, naming node and limit" refuse \
  "$T/huge_sum.onnx" "node 'huge_sum' (Sum): value 'y' of shape \[2097152,2097152,2097152\] has more than 2^63 elements.*at most 2147483647"
check "Range from -2^62 to 2^62 refused without int64 overflow" refuse \
  "$T/range_extreme.onnx" "node 'long_range' (Range): the range has 2^63 elements or more.*at most 2147483647"
check "Split sizes summing past int64 refused without overflow" refuse \
  "$T/split_extreme.onnx" "node 'split_sum' (Split): split sizes add up to more than 2^63"
check "pool stride and pads of 2^62 refused without overflow" refuse \
  "$T/pool_extreme.onnx" "node 'pool' (MaxPool): strides must be at most 2147483647"
check "an input declared [2^32,2^32,2^32] refused" refuse "$T/huge_input.onnx" "4294967296.*2147483647"
# --- ctvm-run checks its inputs: exact dtype, shape and name, nothing reshaped -----
run_refuse() { # expected-text ctvm-run-args...: exit 6, the text on stderr
  local want=$1; shift
  RUN "$@" 2> "$T/err"; local rc=$?
  cat "$T/err"; [ $rc -eq 6 ] && grep -qF -- "$want" "$T/err"
}
SC=golden/small_cnn
check "ctvm-run refuses an .npy of shape [3,32,32,1] for a [1,3,32,32] input, naming both" run_refuse \
  "input 'input' is float32 [1,3,32,32]; $T/in_nhwc.npy holds float32 [3,32,32,1]" $SC/model.onnx --inputs "$T/in_nhwc.npy"
check "ctvm-run refuses an .npy of shape [3072] for a [1,3,32,32] input, naming both" run_refuse \
  "input 'input' is float32 [1,3,32,32]; $T/in_flat.npy holds float32 [3072]" $SC/model.onnx --inputs "$T/in_flat.npy"
check "ctvm-run refuses an input of another dtype, naming both" run_refuse \
  "input 'input' is float32 [1,3,32,32]; $T/in_f64.npy holds float64 [1,3,32,32]" $SC/model.onnx --inputs "$T/in_f64.npy"
check "ctvm-run refuses an .npz without an entry of the input's name, naming the entries" run_refuse \
  "input 'input': no .npz entry of that name ($T/in_other_name.npz holds 'image', 'mask')" $SC/model.onnx --inputs "$T/in_other_name.npz"
check "ctvm-run refuses a .pb whose tensor has another name, naming both" run_refuse \
  "input 'input': $T/in_other_name.pb holds the tensor 'image', not 'input'" $SC/model.onnx --inputs "$T/in_other_name.pb"
check "ctvm-run refuses a scalar for a [1] input" run_refuse \
  "input 'x' is float32 [1]; $T/scalar.npy holds float32 []" "$T/one.onnx" --inputs "$T/scalar.npy"
golden_shape() { # a reference of another shape: FAIL naming both shapes
  /usr/bin/python3 -c 'import numpy as np, sys; np.savez(sys.argv[1], output=np.load(sys.argv[2])["output"].reshape(2, 5))' \
    "$T/ref25.npz" $SC/outputs.npz &&
  { RUN $SC/model.onnx --inputs $SC/inputs.npz --golden "$T/ref25.npz" > "$T/run.out"; [ $? -eq 1 ]; } && cat "$T/run.out" &&
  grep -qF "output 'output' is float32 [1,10]; $T/ref25.npz entry 'output' holds float32 [2,5]: FAIL" "$T/run.out"
}
check "ctvm-run reports a golden output of another shape, naming both" golden_shape
described_names() { # ctvm-run matches inputs and outputs by the exact bytes --describe gives (name_hex)
  $EMIT $SC/model.onnx -o "$T/esc.c" --main test --describe "$T/esc.json" &&
  grep -q '"name_hex": "696e707574"' "$T/esc.json" &&
  /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["inputs"][0]["name_hex"] = "in\"put?\\\né".encode().hex()
d["outputs"][0]["name_hex"] = b"out\"put?".hex()
json.dump(d, open(sys.argv[1], "w"))' "$T/esc.json" &&
  /usr/bin/python3 -c 'import numpy as np, sys
np.savez(sys.argv[1], **{"in\"put?\\\né": np.load(sys.argv[3])["input"]})
np.savez(sys.argv[2], **{"out\"put?": np.load(sys.argv[4])["output"]})' "$T/esc_in.npz" "$T/esc_ref.npz" $SC/inputs.npz $SC/outputs.npz &&
  RUN "$T/esc.c" --inputs "$T/esc_in.npz" --golden "$T/esc_ref.npz" --output "$T/esc_out.npz" &&
  /usr/bin/python3 -c 'import numpy as np, sys; k = list(np.load(sys.argv[1]).keys()); print(k); sys.exit(k != ["out\"put?"])' "$T/esc_out.npz"
}
check "ctvm-run reads the model's names from --describe's JSON (model.json beside model.c) byte for byte" described_names
no_description() { # a model.c without its description: a clear error, not a guess
  $EMIT $SC/model.onnx -o "$T/nodesc.c" --main test && rm -f "$T/nodesc.json" &&
  { RUN "$T/nodesc.c" --inputs $SC/inputs.npz 2> "$T/nodesc.err"; [ $? -ne 0 ]; } &&
  grep -qF "$T/nodesc.json: not an API description" "$T/nodesc.err"
}
check "ctvm-run on a model.c without model.json beside it says so" no_description

# --- no shell: paths and option words reach the compiler and the model as argv words ---
noshell_c() { # a generated .c in a folder whose name is a shell payload
  local d="$T/x';touch PWNED;'"
  rm -f "$T/PWNED" && mkdir -p "$d" && $EMIT $SC/model.onnx -o "$d/model.c" --describe "$d/model.json" --main test &&
  (cd "$T" && "$OLDPWD/build/ctvm-run" "$d/model.c" --inputs "$OLDPWD/$SC/inputs.npz" --golden "$OLDPWD/$SC/outputs.npz") &&
  [ ! -e "$T/PWNED" ] && [ ! -e PWNED ]
}
check "ctvm-run: a .c path holding x';touch PWNED;' builds and runs, and runs no payload" noshell_c
noshell_onnx() { # a model path with spaces and $( ), a TMPDIR holding a quote payload, words in --cc/--cflags/--runner
  local m="$T/my model \$(touch PWNED2)" tmp="$T/tmp';touch PWNED3;'"
  rm -f "$T/PWNED2" "$T/PWNED3" && mkdir -p "$m" "$tmp" && cp $SC/model.onnx "$m/model.onnx" &&
  (cd "$T" && TMPDIR="$tmp" "$OLDPWD/build/ctvm-run" "$m/model.onnx" --inputs "$OLDPWD/$SC/inputs.npz" \
     --golden "$OLDPWD/$SC/outputs.npz" --cc "env CTVM_UNUSED=1  gcc" --cflags " -O2  -DCTVM_UNUSED=1 " \
     --runner "env CTVM_UNUSED=1") &&
  [ ! -e "$T/PWNED2" ] && [ ! -e "$T/PWNED3" ] && [ -z "$(ls -A "$tmp")" ]
}
check "ctvm-run: a model path with spaces and \$( ), a TMPDIR with a quote: no payload runs, the temp folder is removed" noshell_onnx
noshell_flags() { # option text is split into words, never given to a shell: $( ) is a word for gcc
  rm -f "$T/PWNED4" &&
  { RUN $SC/model.onnx --inputs $SC/inputs.npz --cflags "-O2 \$(touch $T/PWNED4)" > "$T/run.out" 2>&1; [ $? -eq 4 ]; } &&
  grep -qF '$(touch' "$T/run.out" && [ ! -e "$T/PWNED4" ]
}
check "ctvm-run: --cflags '\$(touch ...)' is a compiler argument, not a command" noshell_flags

check "a Tile to [2^33, 0] refused: no elements, but a dim past int" refuse "$T/tile_huge_empty.onnx" \
  "node 'tile_empty' (Tile): value 'y' of shape \[8589934592,0\] has dimension 8589934592 at axis 0"
for op in Concat Einsum Sum Max; do
  check "$op with an empty input name refused (was a NULL dereference)" refuse "$T/missing_$op.onnx" \
    "node 'n' ($op): input 1 is missing (every input of $op is required)"
done

echo
[ "$fail" -eq 0 ] || printf 'failed: %s\n' "${failed[@]}"
echo "e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
