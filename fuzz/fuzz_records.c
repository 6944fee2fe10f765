/* fuzz_records.c - libFuzzer target: a tuning-records file, as ctvm-emit
 * --tuning-records reads it: tune_records_load (any target and version, so
 * mutated records are not just skipped), the choice per workload
 * (tune_records_tuning), then the knobs applied while emitting the bundled
 * small CNN (golden/small_cnn/model.onnx, read once; the seeds hold records
 * of its own workloads, see fuzz/seeds.sh). Hostile knobs must be refused
 * or clamped by the schedules, never crash or hang them. */
#include "fuzz_util.h"

#include "emit_c/emit.h"
#include "lower/lower.h"
#include "frontend/file_util.h"
#include "frontend/onnx_load.h"
#include "ir/target.h"
#include "passes/passes.h"
#include "tune/records_tuning.h"

static unsigned char *model;
static size_t model_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path = getenv("CTVM_FUZZ_MODEL") ? getenv("CTVM_FUZZ_MODEL") : "golden/small_cnn/model.onnx";
    Diag d = {.tool = "fuzz_records"};
    if (file_read_all(path, &model, &model_len, &d) != 0)
        abort(); /* run from the repository's root, or set CTVM_FUZZ_MODEL */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    if (!path)
        return 0;
    TuneRecordSet set = {0};
    char err[512];
    if (tune_records_load(path, NULL, NULL, &set, err, sizeof err) != 0) {
        tune_records_free(&set);
        return 0;
    }
    SchedTuning tuning = {0};
    int other;
    if (tune_records_tuning(&set, 1, &tuning, &other) == 0 && tuning.n > 0) {
        Diag d = fuzz_diag("fuzz_records", "model.onnx");
        Graph *g = onnx_load_buffer(model, model_len, NULL, NULL, &d);
        if (g) {
            CodegenOptions cg = {.target = target_find("x86_64-avx512"), .threads = 1, .tuning = &tuning};
            if (passes_run(g, &cg, &d, NULL, NULL) == 0) {
                char *c = NULL;
                size_t nc = 0;
                FILE *fc = open_memstream(&c, &nc);
                if (fc) {
                    EmitOptions eo = {.prefix = "model"};
                    Module *m = lower_model(g, &cg, &d);
                    if (m)
                        emit_module(m, &eo, fc, NULL, &d);
                    module_free(m);
                    fclose(fc);
                }
                free(c);
            }
            graph_free(g);
        }
    }
    tune_tuning_free(&tuning);
    tune_records_free(&set);
    return 0;
}
