/* ctvm_emit.c - `ctvm-emit model.onnx -o model.c [options]`: the compiler's
 * command line. Flags follow tvmc where tvmc has one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "ir/target.h"
#include "schedule/schedule_key.h"
#include "tune/records.h"
#include "tune/records_tuning.h"

static void usage(FILE *f)
{
    fputs("usage: ctvm-emit model.onnx -o model.c [options]\n"
          "  -o, --output FILE        generated C file (required)\n"
          "  --header FILE            also write the API header\n"
          "  --prefix NAME            API prefix: NAME_run, NAME_WORKSPACE_SIZE (default: model)\n"
          "  --target T               native (default: detect this host), x86_64-avx512,\n"
          "                           x86_64-avx512-vnni, x86_64-avx512-bf16, x86_64-avx2,\n"
          "                           x86_64-avx2-vnni, x86_64-sse4, aarch64,\n"
          "                           aarch64-dotprod, armv7-neon, riscv64,\n"
          "                           cortex-m7 (bare metal), generic (ISO C99)\n"
          "  --list-targets           print every target: name, vector API, lanes, registers,\n"
          "                           compiler, runner (qemu-user or -), compiler flags\n"
          "                           (the ISA flags are optional for x86 and armv7-neon:\n"
          "                           the file enables its ISA itself, see its stamp)\n"
          "  --threads N              parallel outer loops on N threads (OpenMP; default 1)\n"
          "  --arena static|caller    static: NAME_run uses a static workspace (default);\n"
          "                           caller: only NAME_run_ws, the caller passes the workspace\n"
          "  --weights-section NAME   place the weights in linker section NAME (e.g. .ctvm_weights)\n"
          "  --weights-text auto|octal|raw  weight bytes 0x80-0xff as octal escapes (ASCII file)\n"
          "                           or as themselves (half the file, half gcc's time and\n"
          "                           memory; gcc and clang); auto: raw from 32 MB of weights\n"
          "  --arena-section NAME     place the static workspace in linker section NAME\n"
          "  --input-shapes SPEC      e.g. 'input:[1,3,224,224]': sizes for symbolic, unknown,\n"
          "                           -1 or 0 dims (a fixed positive dim must agree)\n"
          "  --bind NAME=FILE         fix graph input NAME to the tensor in FILE (.npy/.npz/.pb):\n"
          "                           it becomes a constant, so inputs that decide shapes (a\n"
          "                           Reshape shape, Slice starts, TopK k...) can be inputs;\n"
          "                           the compiled model no longer has it (repeatable)\n"
          "  --max-fold-bytes N       bytes of constants folding may make (K/M/G suffixes;\n"
          "                           default 1G + 8 x the model's own constant bytes)\n"
          "  --tuning-records FILE    apply ctvm-tune's best knobs per workload (records of this\n"
          "                           ctvm version, target and thread count; others are ignored)\n"
          "  --main test|bench        compile in the test/bench main (defines CTVM_MAIN)\n"
          "  --dump-after PASS|all    print the graph after a graph pass, or the module (each\n"
          "                           kernel's loop nest) after a loop pass (stdout)\n"
          "  --describe FILE.json     also write the API (inputs, outputs, dtypes, shapes,\n"
          "                           workspace, target, entry points) as JSON\n"
          "  --verbose                print kernels, weight and arena bytes\n"
          "  -h, --help\n",
          f);
}

/* Section names go into a string literal in the generated file. */
static int section_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' ||
              *s == '_' || *s == '$'))
            return 0;
    return 1;
}

/* The knobs per workload from the records of this version, target and
   thread count; the records of other thread counts are reported. */
static int load_tuning(const char *path, const CompileOptions *o, TuneRecordSet *set, SchedTuning *t)
{
    if (tune_records_load_report("ctvm-emit", path, target_find(o->target)->name, CTVM_VERSION, set) != 0)
        return -1;
    int other_threads;
    if (tune_records_tuning(set, o->threads, t, &other_threads) != 0) {
        fprintf(stderr, "ctvm-emit: %s: out of memory\n", path);
        return -1;
    }
    if (other_threads)
        fprintf(stderr, "ctvm-emit: %s: %d records are for another thread count than %d (not used)\n", path,
                other_threads, o->threads);
    return 0;
}

int main(int argc, char **argv)
{
    CompileOptions o;
    memset(&o, 0, sizeof o);
    const char *records = NULL;
    Diag d = {.tool = "ctvm-emit"};
    o.emit.prefix = "model";
    o.target = "native";
    o.threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(flag) (strcmp(a, flag) == 0 && val && (++i, 1))
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--list-targets")) {
            for (int k = 0; target_at(k); k++) {
                const Target *t = target_at(k);
                printf("%s %s %d %d %s %s %s\n", t->name, t->isa, t->vl, t->n_vregs, t->cc,
                       t->runner ? t->runner : "-", t->cflags);
            }
            return 0;
        } else if (TAKE("-o") || TAKE("--output")) {
            o.out_c = val;
        } else if (TAKE("--header")) {
            o.out_h = val;
        } else if (TAKE("--prefix")) {
            o.emit.prefix = val;
        } else if (TAKE("--target")) {
            o.target = val;
        } else if (TAKE("--threads")) {
            char *end;
            long t = strtol(val, &end, 10);
            if (*end || t < 1 || t > 1024) {
                fprintf(stderr, "ctvm-emit: --threads takes a number from 1 to 1024, not '%s'\n", val);
                return 2;
            }
            o.threads = (int)t;
        } else if (TAKE("--arena")) {
            if (strcmp(val, "static") && strcmp(val, "caller")) {
                fprintf(stderr, "ctvm-emit: --arena takes static or caller, not '%s'\n", val);
                return 2;
            }
            o.emit.arena_caller = val[0] == 'c';
        } else if (TAKE("--weights-text")) {
            if (strcmp(val, "auto") && strcmp(val, "octal") && strcmp(val, "raw")) {
                fprintf(stderr, "ctvm-emit: --weights-text takes auto, octal or raw, not '%s'\n", val);
                return 2;
            }
            o.emit.weights_text = val[0] == 'a' ? 0 : val[0] == 'o' ? 1 : 2;
        } else if (TAKE("--weights-section") || TAKE("--arena-section")) {
            if (!section_name_ok(val)) {
                fprintf(stderr, "ctvm-emit: %s '%s': a section name is 1-64 of [A-Za-z0-9._$]\n", a, val);
                return 2;
            }
            if (a[2] == 'w')
                o.emit.weights_section = val;
            else
                o.emit.arena_section = val;
        } else if (TAKE("--input-shapes")) {
            d.file = "--input-shapes";
            if (onnx_parse_input_shapes(val, &o.load, &d) != 0)
                return 2;
            d.file = NULL;
        } else if (TAKE("--bind")) {
            d.file = "--bind";
            if (onnx_parse_bind(val, &o.load, &d) != 0)
                return 2;
            d.file = NULL;
        } else if (TAKE("--main")) {
            if (strcmp(val, "test") && strcmp(val, "bench")) {
                fprintf(stderr, "ctvm-emit: --main takes test or bench\n");
                return 2;
            }
            o.emit.main_mode = 1;
        } else if (TAKE("--max-fold-bytes")) {
            if (driver_parse_max_fold_bytes("ctvm-emit", val, &o) != 0)
                return 2;
        } else if (TAKE("--tuning-records")) {
            records = val;
        } else if (TAKE("--dump-after")) {
            o.dump_after = val;
        } else if (TAKE("--describe")) {
            o.describe = val;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            o.emit.verbose = 1;
        } else if (a[0] == '-') {
            fprintf(stderr, "ctvm-emit: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!o.model) {
            o.model = a;
        } else {
            fprintf(stderr, "ctvm-emit: more than one model given ('%s')\n", a);
            return 2;
        }
#undef TAKE
    }
    if (!o.model || !o.out_c) {
        usage(stderr);
        return 2;
    }
    if (o.emit.arena_caller && o.emit.arena_section) {
        fprintf(stderr, "ctvm-emit: --arena-section places the static workspace, which --arena caller removes\n");
        return 2;
    }
    if (!target_find(o.target)) {
        fprintf(stderr, "ctvm-emit: unknown target '%s' (known: %s)\n", o.target, target_names());
        return 2;
    }
    for (const char *p = o.emit.prefix; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
              (p != o.emit.prefix && *p >= '0' && *p <= '9'))) {
            fprintf(stderr, "ctvm-emit: --prefix '%s' is not a C identifier\n", o.emit.prefix);
            return 2;
        }
    TuneRecordSet set = {0};
    SchedTuning tuning = {0};
    if (records) {
        if (load_tuning(records, &o, &set, &tuning) != 0)
            return 1;
        o.tuning = &tuning;
    }
    d.file = o.model;
    char *cmd = driver_join_args(argc, argv);
    o.emit.command_line = cmd;
    int rc = driver_compile(&o, &d);
    free(cmd);
    if (records && rc == 0) {
        int matched = 0, kernels = 0;
        for (int i = 0; i < tuning.n; i++) {
            matched += tuning.used[i] > 0;
            kernels += tuning.used[i];
        }
        fprintf(stderr, "ctvm-emit: %s: %d of its %d tuned workloads (%s, %d thread%s) matched, applied to %d kernels\n",
                records, matched, tuning.n, target_find(o.target)->name, o.threads,
                o.threads > 1 ? "s" : "", kernels);
    }
    tune_tuning_free(&tuning);
    tune_records_free(&set);
    return rc == 0 ? 0 : 1;
}
