#!/usr/bin/env bash
# seeds.sh DIR - the seed corpora of the fuzz targets, one folder each under
# DIR: fuzz_model gets the bundled models (golden/) and the ONNX backend test
# models (Debian's libonnx-testdata), fuzz_tensor the golden .npy/.npz and
# test-data .pb tensors, each behind the selector byte fuzz/fuzz_tensor.c
# reads, fuzz_records records of the bundled small CNN's own workloads (from
# ctvm-tune --tasks list, with default and other knobs) and bench/records
# lines. Run from the repository's root after `make`.
set -euo pipefail
out=$1
TD=/usr/share/libonnx-testdata/data
mkdir -p "$out/fuzz_model" "$out/fuzz_tensor" "$out/fuzz_records"
i=0
for f in golden/*/model.onnx "$TD"/node/*/model.onnx "$TD"/pytorch-operator/*/model.onnx "$TD"/simple/*/model.onnx; do
  [ -f "$f" ] && cp "$f" "$out/fuzz_model/m$((i++)).onnx"
done
i=0
for f in $(find golden -name '*.npy'); do { printf '\000'; cat "$f"; } > "$out/fuzz_tensor/npy$((i++))"; done
for f in $(find golden -name '*.npz'); do { printf '\001'; cat "$f"; } > "$out/fuzz_tensor/npz$((i++))"; done
for f in $(ls "$TD"/node/*/test_data_set_0/*.pb | awk 'NR % 8 == 0'); do
  { printf '\002'; cat "$f"; } > "$out/fuzz_tensor/pb$((i++))"
done
i=0
while IFS= read -r w; do
  for k in "0,0,0,0" "2,1,1,1" "4,2,0,1" "8,4,2,0" "1,3,0,0"; do
    printf '{"v":1,"ctvm":"0.1.0","target":"x86_64-avx512","workload":"%s","threads":1,"knobs":[%s],"status":"ok","median_ms":0.5,"gflops":1.0,"runs_ms":[0.5,0.5],"error":"","time":1}\n' "$w" "$k"
  done > "$out/fuzz_records/r$((i++)).json"
done < <(build/ctvm-tune golden/small_cnn/model.onnx --target x86_64-avx512 --tasks list | awk '!/^#/ {s = $5; for (k = 6; k <= NF; k++) s = s " " $k; print s}')
for f in bench/records/*.json; do head -20 "$f" > "$out/fuzz_records/bench$((i++)).json"; done
echo "seeds: $(ls "$out/fuzz_model" | wc -l) models, $(ls "$out/fuzz_tensor" | wc -l) tensors, $(ls "$out/fuzz_records" | wc -l) record files"
