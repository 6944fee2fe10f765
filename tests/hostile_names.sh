#!/usr/bin/env bash
# hostile_names.sh - model text never becomes code (issue 20). A valid model
# whose input, output, node, weight and graph names hold quotes, backslashes,
# newlines, */, ??/ trigraphs, '#' directives, terminal escapes and bytes that
# are not UTF-8 (tests/make_hostile_names.py), written to a folder whose name
# holds "*/" and a newline (the stamp prints the command line), is emitted
# with a header for every host target, single-threaded and with --threads 2,
# and ctvm-tune builds candidate programs from it. Each file must compile
# -std=c99 (trigraphs on) -pedantic -Wall -Wextra -Werror, the API's _NAME
# macros must hold exactly the model's bytes, the outputs must match PyTorch,
# and no payload may run (no PWNED file appears). Prints "hostile names: N
# passed, N failed" last.
set -u
cd "$(dirname "$0")/.."
BIN=$PWD/${CTVM_BIN:-build} # CTVM_BIN as in tests/e2e.sh
ROOT=$PWD EMIT=$BIN/ctvm-emit RUN=$BIN/ctvm-run TUNE=$BIN/ctvm-tune
. tools/stamp.sh
T=$(mktemp -d /tmp/ctvm-hostile-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { local name=$1; shift; if "$@" > "$T/log" 2>&1; then pass=$((pass+1)); echo "ok   $name";
  else fail=$((fail+1)); echo "FAIL $name"; sed 's/^/     /' "$T/log" | tail -20; fi; }
no_payload() { [ ! -e "$T/PWNED" ] && [ ! -e "$ROOT/PWNED" ] && [ ! -e "$D/PWNED" ]; }

D="$T/out*"$'\n''#error stamp ??/'
mkdir -p "$D"
/usr/bin/python3 tests/make_hostile_names.py "$T" > "$T/mk.log" 2>&1 || { cat "$T/mk.log"; echo "hostile names: 0 passed, 1 failed"; exit 1; }

# prints every _NAME macro of the header in hex, one a line, in names.hex's order
cat > "$T/names.c" <<'C'
#include <stdio.h>
#include "m.h"
static void hex(const char *s) { for (; *s; s++) printf("%02x", (unsigned char)*s); putchar('\n'); }
int main(void) { hex(model_INPUT0_NAME); hex(model_INPUT1_NAME); hex(model_OUTPUT0_NAME); return 0; }
C

emit_strict() { # target threads
  local f; rm -f "$D/m.c" "$D/m.h"
  "$EMIT" "$T/hostile.onnx" -o "$D/m.c" --header "$D/m.h" --target "$1" --threads "$2" || return 1
  f=$(stamp_flags "$D/m.c")
  # -std=c99 turns trigraphs on: an unescaped ??/ in a literal would end it late
  $(stamp_cc "$D/m.c") -std=c99 -pedantic -Wall -Wextra -Werror -O1 $f -DCTVM_MAIN -DCTVM_PROFILE \
    $([ "$2" -gt 1 ] && echo -fopenmp) -c "$D/m.c" -o "$T/m.o" || return 1
  cp "$D/m.h" "$T/m.h" && gcc -std=c99 -pedantic -Wall -Wextra -Werror -I"$T" "$T/names.c" -o "$T/names" &&
    "$T/names" > "$T/names.out" && diff "$T/names.hex" "$T/names.out" && no_payload
}
flags=" $(grep -m1 '^flags' /proc/cpuinfo) "
targets=generic
[[ $flags == *" sse4_1 "* ]] && targets="$targets x86_64-sse4"
[[ $flags == *" avx2 "* && $flags == *" fma "* ]] && targets="$targets x86_64-avx2"
[[ $flags == *" avx512f "* ]] && targets="$targets x86_64-avx512"
for t in $targets; do
  for th in 1 2; do
    check "hostile names: $t --threads $th compiles -Werror, _NAME macros hold the model's bytes" emit_strict "$t" "$th"
  done
done

run_matches() { # the payloads would run here, in the model's folder
  (cd "$D" && "$RUN" "$T/hostile.onnx" --inputs "$T/in0.npy" "$T/in1.npy" --golden "$T/out.npy" "$@") && no_payload
}
check "hostile names: ctvm-run builds and runs the model, outputs match PyTorch, no payload runs" run_matches
check "hostile names: the same with --threads 2 --profile" run_matches --threads 2 --profile
tune_clean() { # candidates print the anchor node's name in their banner
  (cd "$D" && "$TUNE" "$T/hostile.onnx" -o "$D/r.json" --trials 2 --repeat 1 -q) &&
    grep -q '"ok"' "$D/r.json" && ! grep -q build_fail "$D/r.json" && no_payload
}
check "hostile names: ctvm-tune's candidate programs build and check ok, no payload runs" tune_clean
echo "hostile names: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
