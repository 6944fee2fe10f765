/* fuzz_model.c - libFuzzer target: model bytes -> onnx_load_buffer -> every
 * pass -> lower_model -> emit_module into memory (model.c and model.h), as ctvm-emit does,
 * with external data refused. The target and thread count come from the
 * input's length, so one corpus reaches the scalar, x86 and NEON emitters
 * and the threaded entry points. Any crash, leak, hang or sanitizer report
 * is a bug; refusals are the normal case. */
#include "fuzz_util.h"

#include "emit_c/emit.h"
#include "lower/lower.h"
#include "frontend/onnx_load.h"
#include "ir/target.h"
#include "passes/passes.h"

static const char *const TARGETS[] = {"generic", "x86_64-avx512", "aarch64", "x86_64-sse4"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Diag d = fuzz_diag("fuzz_model", "input.onnx");
    Graph *g = onnx_load_buffer(data, size, NULL, NULL, &d);
    if (!g) {
        if (getenv("CTVM_FUZZ_VERBOSE"))
            fprintf(stderr, "%s\n", d.last);
        return 0;
    }
    const char *target = TARGETS[size % 4];
    CodegenOptions cg = {.target = target_find(target), .threads = (int)(size / 4 % 2) + 1};
    if (passes_run(g, &cg, &d, NULL, NULL) == 0) {
        char *c = NULL, *h = NULL;
        size_t nc = 0, nh = 0;
        FILE *fc = open_memstream(&c, &nc), *fh = open_memstream(&h, &nh);
        if (fc && fh) {
            EmitOptions eo = {.prefix = "model", .main_mode = 1};
            Module *m = lower_model(g, &cg, &d);
            if (m)
                emit_module(m, &eo, fc, fh, &d);
            module_free(m);
        }
        if (fc)
            fclose(fc);
        if (fh)
            fclose(fh);
        free(c);
        free(h);
    }
    graph_free(g);
    if (getenv("CTVM_FUZZ_VERBOSE")) /* replay: say what happened to each input */
        fprintf(stderr, "%s\n", d.n_errors ? d.last : "emitted");
    return 0;
}
