/* ctvm_run.c - `ctvm-run model.onnx|model.c --inputs FILE...`: emit (for
 * .onnx), build with the host C compiler (or the target's cross gcc, and run
 * under its qemu-user, for aarch64/armv7-neon/riscv64 on another host), run on inputs read from .npy/.npz/
 * .pb, write the outputs, diff them against --golden and print the error per
 * output, and with --print-time --repeat N the median and min latency.
 *
 * An output passes when max|out - ref| <= atol + rtol * max|ref| (the
 * tolerance of the end-to-end tests), or with --elementwise when every
 * element has |out - ref| <= atol + rtol * |ref| (numpy's allclose, NaN
 * equal to NaN; the criterion of the ONNX backend tests).
 * Exit status (RUN_* below): 0 all pass, 1 a mismatch, 2 bad usage, 3 the
 * compiler refused the model, 4 building the generated C failed, 5 running
 * it failed, 6 any other failure (unreadable inputs, missing outputs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"
#include "ir/target.h"
#include "frontend/out_file.h"
#include "frontend/tensor_io.h"

#define MAX_IO 64

enum { RUN_OK = 0, RUN_MISMATCH = 1, RUN_USAGE = 2, RUN_REFUSED = 3, RUN_BUILD = 4, RUN_CRASH = 5, RUN_OTHER = 6 };

typedef struct ModelIO { /* parsed from the generated file's stamp and API block */
    char prefix[128];
    char target[64];
    int threads;
    int n_in, n_out;
    char in_name[MAX_IO][256], out_name[MAX_IO][256];
    long in_size[MAX_IO], out_size[MAX_IO];
    long in_bytes[MAX_IO], out_bytes[MAX_IO];
    DType in_dtype[MAX_IO], out_dtype[MAX_IO];
    Shape out_shape[MAX_IO];
} ModelIO;

static void usage(FILE *f)
{
    fputs("usage: ctvm-run model.onnx|model.c --inputs FILE [FILE...] [options]\n"
          "  --inputs FILE...       .npz (by name), .npy or .pb (in input order)\n"
          "  --golden FILE...       expected outputs (.npz by name, .npy/.pb in order)\n"
          "  --rtol R --atol A      pass when max|err| <= A + R*max|ref| (default 1e-3, 1e-4)\n"
          "  --elementwise          pass when every |err| <= A + R*|ref| (allclose; NaN == NaN)\n"
          "  --output FILE.npz      write the outputs\n"
          "  --print-time --repeat N  time N runs after a warm-up; print median and min\n"
          "  --input-shapes SPEC  --prefix NAME (for a .c file)  --keep DIR (keep build files)\n"
          "  --bind NAME=FILE       as ctvm-emit: input NAME becomes the constant in FILE and\n"
          "                         is not read from --inputs (repeatable)\n"
          "  --max-fold-bytes N     as ctvm-emit: bytes of constants folding may make\n"
          "  --profile              time every kernel (CTVM_PROFILE) and print the table\n"
          "  --target T             as ctvm-emit (default native); adds the target's flags\n"
          "  --no-isa-flags         leave out the target's ISA flags (-mavx2 -mfma, -mfpu=neon-vfpv4\n"
          "                         ...): the file enables its ISA itself, as in a plain gcc -O2\n"
          "  --threads N            as ctvm-emit; builds with -fopenmp when N > 1\n"
          "                         (aarch64, armv7-neon, riscv64 off their own machine: built\n"
          "                         -static with the target's cross gcc, run under qemu-user)\n"
          "  --app-threads N        run on N threads of the harness's own (pthreads, no OpenMP)\n"
          "                         through NAME_run_thread; the model is emitted for --threads\n"
          "                         (default N, at least 2); --app-barrier passes a pthread\n"
          "                         barrier instead of the model's own\n"
          "  --cc CC --cflags FLAGS (default: $CC or the target's gcc, -O2)\n"
          "  --runner CMD           run the binary through CMD (default: the target's qemu)\n",
          f);
}

static int parse_api(const char *path, ModelIO *io)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    memset(io, 0, sizeof *io);
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        char p[128], rest[256];
        int i;
        char t[64];
        if (!io->prefix[0] && sscanf(line, " * target: %63[^;]; API prefix: %127s", t, p) == 2) {
            snprintf(io->prefix, sizeof io->prefix, "%s", p);
            snprintf(io->target, sizeof io->target, "%s", t);
        }
        if (sscanf(line, "#define CTVM_THREADS %d", &i) == 1)
            io->threads = i;
        if (!io->prefix[0] || strncmp(line, "#define ", 8) || strncmp(line + 8, io->prefix, strlen(io->prefix)))
            continue;
        const char *m = line + 8 + strlen(io->prefix);
        if (sscanf(m, "_NUM_INPUTS %d", &i) == 1) io->n_in = i;
        else if (sscanf(m, "_NUM_OUTPUTS %d", &i) == 1) io->n_out = i;
        else if (sscanf(m, "_INPUT%d_NAME \"%255[^\"]\"", &i, rest) == 2 && i < MAX_IO)
            snprintf(io->in_name[i], 256, "%s", rest);
        else if (sscanf(m, "_OUTPUT%d_NAME \"%255[^\"]\"", &i, rest) == 2 && i < MAX_IO)
            snprintf(io->out_name[i], 256, "%s", rest);
        else if (sscanf(m, "_INPUT%d_DTYPE \"%255[^\"]\"", &i, rest) == 2 && i < MAX_IO)
            io->in_dtype[i] = dtype_from_name(rest);
        else if (sscanf(m, "_OUTPUT%d_DTYPE \"%255[^\"]\"", &i, rest) == 2 && i < MAX_IO)
            io->out_dtype[i] = dtype_from_name(rest);
        else if (sscanf(m, "_INPUT%d_BYTES %ld", &i, &io->in_bytes[i < MAX_IO ? i : 0]) == 2) {
        } else if (sscanf(m, "_OUTPUT%d_BYTES %ld", &i, &io->out_bytes[i < MAX_IO ? i : 0]) == 2) {
        } else if (sscanf(m, "_INPUT%d_SIZE %ld", &i, &io->in_size[i < MAX_IO ? i : 0]) == 2) {
        } else if (sscanf(m, "_OUTPUT%d_SIZE %ld", &i, &io->out_size[i < MAX_IO ? i : 0]) == 2) {
        } else if (sscanf(m, "_OUTPUT%d_SHAPE {%255[^}]}", &i, rest) == 2 && i < MAX_IO) {
            Shape s = shape_unknown();
            s.rank = 0;
            for (char *tok = strtok(rest, ", "); tok && s.rank < CTVM_MAX_RANK; tok = strtok(NULL, ", "))
                s.dims[s.rank++] = atoll(tok);
            io->out_shape[i] = s;
        }
    }
    fclose(f);
    return io->prefix[0] && io->n_in <= MAX_IO && io->n_out <= MAX_IO ? 0 : -1;
}

/* Tensors from several files, in order. */
static int read_all(char **files, int n_files, Arena *a, Tensor **out, int *n_out, Diag *d)
{
    Tensor *all = arena_array(a, MAX_IO, sizeof(Tensor));
    int n = 0;
    for (int i = 0; i < n_files; i++) {
        Tensor *t;
        int k;
        if (tensor_read_file(files[i], a, &t, &k, d) != 0)
            return -1;
        for (int j = 0; j < k && n < MAX_IO; j++)
            all[n++] = t[j];
    }
    *out = all;
    *n_out = n;
    return 0;
}

/* The tensor for name (exact match), else position i. */
static const Tensor *pick(const Tensor *ts, int n, const char *name, int i)
{
    for (int k = 0; k < n; k++)
        if (ts[k].name && strcmp(ts[k].name, name) == 0)
            return &ts[k];
    return i < n ? &ts[i] : NULL;
}

/* Writes data to path through out_file.h (--keep DIR may be the user's
 * folder); -1 after a diagnostic. */
static int write_raw(const char *path, const void *data, size_t bytes, Diag *d)
{
    OutFile o;
    if (out_open(&o, path, d) != 0)
        return -1;
    if (fwrite(data, 1, bytes, o.f) != bytes) {
        out_drop(&o);
        return diag_error(d, NULL, -1, "cannot write '%s': write error", path);
    }
    return out_commit(&o, d);
}

/* Runs cmd; *out gets all it printed (read to the end, so a long profile
 * table never leaves the child writing into a closed pipe). */
static int run_cmd(Arena *a, const char *cmd, char **out)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = arena_alloc(a, cap);
    *out = buf;
    buf[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    for (;;) {
        if (cap - n < 4096) {
            buf = arena_grow(a, buf, cap, cap * 2, 1);
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, p);
        if (got == 0)
            break;
        n += got;
    }
    buf[n] = 0;
    *out = buf;
    return pclose(p);
}

int main(int argc, char **argv)
{
    const char *model = NULL, *output = NULL, *keep = NULL, *prefix = NULL;
    const char *cc = getenv("CC"), *cflags = "-O2", *target = "native", *runner = NULL;
    int threads = 1, profile = 0, isa_flags = 1, app_threads = 0, app_barrier = 0, threads_given = 0;
    char *inputs[MAX_IO], *golden[MAX_IO];
    int n_inputs = 0, n_golden = 0, print_time = 0, repeat = 1, elementwise = 0;
    double rtol = 1e-3, atol = 1e-4;
    CompileOptions co;
    memset(&co, 0, sizeof co);
    Diag d = {.tool = "ctvm-run"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--inputs") || !strcmp(a, "--golden")) {
            int is_in = a[2] == 'i';
            while (i + 1 < argc && argv[i + 1][0] != '-') {
                if ((is_in ? n_inputs : n_golden) >= MAX_IO)
                    break;
                if (is_in)
                    inputs[n_inputs++] = argv[++i];
                else
                    golden[n_golden++] = argv[++i];
            }
        } else if (!strcmp(a, "--rtol") && val) {
            rtol = atof(argv[++i]);
        } else if (!strcmp(a, "--atol") && val) {
            atol = atof(argv[++i]);
        } else if (!strcmp(a, "--output") && val) {
            output = argv[++i];
        } else if (!strcmp(a, "--repeat") && val) {
            repeat = atoi(argv[++i]);
        } else if (!strcmp(a, "--profile")) {
            profile = print_time = 1;
        } else if (!strcmp(a, "--no-isa-flags")) {
            isa_flags = 0;
        } else if (!strcmp(a, "--elementwise")) {
            elementwise = 1;
        } else if (!strcmp(a, "--print-time")) {
            print_time = 1;
        } else if (!strcmp(a, "--keep") && val) {
            keep = argv[++i];
        } else if (!strcmp(a, "--prefix") && val) {
            prefix = argv[++i];
        } else if (!strcmp(a, "--target") && val) {
            target = argv[++i];
            if (!target_find(target)) {
                fprintf(stderr, "ctvm-run: unknown target '%s' (known: %s)\n", target, target_names());
                return 2;
            }
        } else if (!strcmp(a, "--app-threads") && val) {
            app_threads = atoi(argv[++i]);
            if (app_threads < 1 || app_threads > 1024) {
                fprintf(stderr, "ctvm-run: --app-threads takes a number from 1 to 1024\n");
                return 2;
            }
        } else if (!strcmp(a, "--app-barrier")) {
            app_barrier = 1;
        } else if (!strcmp(a, "--threads") && val) {
            threads_given = 1;
            threads = atoi(argv[++i]);
            if (threads < 1 || threads > 1024) {
                fprintf(stderr, "ctvm-run: --threads takes a number from 1 to 1024\n");
                return 2;
            }
        } else if (!strcmp(a, "--cc") && val) {
            cc = argv[++i];
        } else if (!strcmp(a, "--runner") && val) {
            runner = argv[++i];
        } else if (!strcmp(a, "--cflags") && val) {
            cflags = argv[++i];
        } else if (!strcmp(a, "--input-shapes") && val) {
            if (onnx_parse_input_shapes(argv[++i], &co.load, &d) != 0)
                return 2;
        } else if (!strcmp(a, "--max-fold-bytes") && val) {
            if (driver_parse_max_fold_bytes("ctvm-run", argv[++i], &co) != 0)
                return 2;
        } else if (!strcmp(a, "--bind") && val) {
            if (onnx_parse_bind(argv[++i], &co.load, &d) != 0)
                return 2;
        } else if (a[0] == '-' || model) {
            fprintf(stderr, "ctvm-run: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        } else {
            model = a;
        }
    }
    if (!model) {
        usage(stderr);
        return 2;
    }
    if (app_threads && !threads_given) /* a team of that size needs a threaded model */
        threads = app_threads > 1 ? app_threads : 2;
    d.file = model;
    char why[200];
    if (output && out_target_check(output, why, sizeof why) != 0) /* before any work */
        return diag_error(&d, NULL, -1, "cannot write '%s': %s", output, why), 2;
    char dir[4096];
    if (keep) {
        snprintf(dir, sizeof dir, "%s", keep);
        mkdir(dir, 0755);
    } else {
        const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(dir, sizeof dir, "%s/ctvm-run-XXXXXX", tmp);
        if (!mkdtemp(dir)) {
            perror("ctvm-run: mkdtemp");
            return 1;
        }
    }
    char model_c[4200], exe[4200], cmd[16384];
    char *text = NULL;
    int rc = RUN_OTHER;
    Arena *arena = arena_new();
    size_t len = strlen(model);
    if (len > 2 && strcmp(model + len - 2, ".c") == 0) {
        snprintf(model_c, sizeof model_c, "%s", model);
    } else {
        snprintf(model_c, sizeof model_c, "%s/model.c", dir);
        co.model = model;
        co.out_c = model_c;
        co.emit.prefix = prefix ? prefix : "model";
        co.emit.target = target;
        co.emit.threads = threads;
        co.emit.command_line = "ctvm-run";
        co.emit.main_mode = 1;
        if (driver_compile(&co, &d) != 0) {
            rc = RUN_REFUSED;
            goto done;
        }
    }
    ModelIO io;
    if (parse_api(model_c, &io) != 0) {
        diag_error(&d, NULL, -1, "%s is not a ctvm-generated file (no API block)", model_c);
        goto done;
    }
    snprintf(exe, sizeof exe, "%s/model", dir);
    const Target *tg = target_find(io.target);
    /* Off-host Linux targets: the target's cross gcc, linked -static so
       qemu-user needs no sysroot, and its qemu as the runner. */
    int cross = tg && !target_runs_natively(tg);
    if (cross && !tg->runner && !runner) {
        diag_error(&d, NULL, -1, "target %s is bare metal and cannot be run here; build the generated C with "
                                 "%s -O2 %s -c (see README)", tg->name, tg->cc, tg->cflags);
        goto done;
    }
    if (!cc)
        cc = tg ? tg->cc : "gcc";
    if (!runner)
        runner = cross ? tg->runner : "";
    char team_flags[96] = "";
    if (app_threads) {
        if (io.threads < 2) {
            diag_error(&d, NULL, -1, "--app-threads needs a model emitted with --threads 2 or more");
            goto done;
        }
        snprintf(team_flags, sizeof team_flags, " -pthread -DCTVM_MAIN_TEAM=%d%s", app_threads,
                 app_barrier ? " -DCTVM_MAIN_TEAM_PBARRIER" : "");
    }
    snprintf(cmd, sizeof cmd, "%s %s %s%s%s%s%s -std=c99 -DCTVM_MAIN -o '%s' '%s' -lm 2>&1", cc, cflags,
             tg && (isa_flags || !tg->isa_in_file) ? tg->cflags : "",
             io.threads > 1 && !app_threads ? " -fopenmp" : "", team_flags, profile ? " -DCTVM_PROFILE" : "",
             cross ? " -static" : "", exe, model_c);
    if (run_cmd(arena, cmd, &text) != 0) {
        diag_error(&d, NULL, -1, "building the generated code failed:\n%s", text);
        rc = RUN_BUILD;
        goto done;
    }
    Tensor *in_t;
    int n_in_t;
    if (read_all(inputs, n_inputs, arena, &in_t, &n_in_t, &d) != 0)
        goto done;
    for (int i = 0; i < io.n_in; i++) {
        Tensor *t = (Tensor *)pick(in_t, n_in_t, io.in_name[i], i);
        int64_t numel = 0;
        if (t && t->dtype == DT_UINT16 && io.in_dtype[i] == DT_BFLOAT16)
            t->dtype = DT_BFLOAT16; /* onnx < 1.14 test data: bfloat16 bits typed uint16 */
        if (!t || !shape_numel(&t->shape, &numel) || numel != io.in_size[i] || t->dtype != io.in_dtype[i]) {
            diag_error(&d, NULL, -1, "no %s tensor of %ld elements for input '%s'%s%s", dtype_name(io.in_dtype[i]),
                       io.in_size[i], io.in_name[i], t && t->dtype != io.in_dtype[i] ? ": got " : "",
                       t && t->dtype != io.in_dtype[i] ? dtype_name(t->dtype) : "");
            goto done;
        }
        char p[4200];
        snprintf(p, sizeof p, "%s/in%d.bin", dir, i);
        if (write_raw(p, t->data, (size_t)io.in_bytes[i], &d) != 0)
            goto done;
    }
    snprintf(cmd, sizeof cmd, "%s%s'%s' '%s' '%s' %d 2>&1", runner, *runner ? " " : "", exe, dir, dir,
             print_time ? repeat : 1);
    if (run_cmd(arena, cmd, &text) != 0) {
        diag_error(&d, NULL, -1, "running the model failed:\n%s", text);
        rc = RUN_CRASH;
        goto done;
    }
    if (print_time) {
        double med, mn;
        if (sscanf(strstr(text, "median_ms=") ? strstr(text, "median_ms=") : "", "median_ms=%lf min_ms=%lf", &med, &mn) == 2)
            printf("time: median %.3f ms, min %.3f ms over %d runs\n", med, mn, repeat);
        for (const char *l = strstr(text, "ctvm-prof:"); profile && l; l = strstr(l + 1, "ctvm-prof:"))
            printf("%.*s\n", (int)strcspn(l, "\n"), l);
    }
    Tensor outs[MAX_IO];
    for (int i = 0; i < io.n_out; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/out%d.bin", dir, i);
        /* an output of data-dependent shape comes with its actual dims */
        char sp[4200];
        snprintf(sp, sizeof sp, "%s/out%d.shape", dir, i);
        FILE *sf = fopen(sp, "r");
        if (sf) {
            Shape act = shape_unknown();
            act.rank = 0;
            long long dim;
            while (act.rank < CTVM_MAX_RANK && fscanf(sf, "%lld", &dim) == 1)
                act.dims[act.rank++] = dim;
            fclose(sf);
            int64_t numel, bytes;
            if (!shape_numel(&act, &numel) || !dtype_bytes(io.out_dtype[i], numel, &bytes) || bytes > io.out_bytes[i]) {
                diag_error(&d, NULL, -1, "output %d: bad actual shape", i);
                goto done;
            }
            io.out_shape[i] = act;
            io.out_size[i] = (long)numel;
            io.out_bytes[i] = (long)bytes;
        }
        unsigned char *buf = arena_alloc(arena, (size_t)io.out_bytes[i] + 8);
        FILE *f = fopen(p, "rb");
        size_t got = f ? fread(buf, 1, (size_t)io.out_bytes[i], f) : 0;
        if (f)
            fclose(f);
        if (got != (size_t)io.out_bytes[i]) {
            diag_error(&d, NULL, -1, "output %d missing or short", i);
            goto done;
        }
        outs[i] = (Tensor){.name = io.out_name[i], .dtype = io.out_dtype[i], .shape = io.out_shape[i], .data = buf};
    }
    if (output && tensor_write_npz(output, outs, io.n_out, &d) != 0)
        goto done;
    rc = RUN_OK;
    if (n_golden) {
        Tensor *ref;
        int n_ref;
        if (read_all(golden, n_golden, arena, &ref, &n_ref, &d) != 0) {
            rc = RUN_OTHER;
            goto done;
        }
        for (int i = 0; i < io.n_out; i++) {
            Tensor *r = (Tensor *)pick(ref, n_ref, io.out_name[i], i);
            int64_t numel = 0;
            if (r && r->dtype == DT_UINT16 && outs[i].dtype == DT_BFLOAT16)
                r->dtype = DT_BFLOAT16; /* as for the inputs above */
            if (!r || !shape_numel(&r->shape, &numel) || numel != io.out_size[i] ||
                (r->shape.rank == io.out_shape[i].rank && !shape_equal(&r->shape, &io.out_shape[i]))) {
                printf("output '%s': no reference of shape %s: FAIL\n", io.out_name[i], shape_str(&io.out_shape[i],
                       (char[96]){0}, 96));
                rc = RUN_MISMATCH;
                continue;
            }
            if (r->dtype != outs[i].dtype) {
                printf("output '%s': reference is %s, the model's output is %s: FAIL\n", io.out_name[i],
                       dtype_name(r->dtype), dtype_name(outs[i].dtype));
                rc = RUN_MISMATCH;
                continue;
            }
            double max_abs = 0, max_ref = 0, max_rel = 0;
            int64_t bad_elems = 0;
            int exact = !dtype_is_float(r->dtype); /* integers and bool compare exactly */
            for (int64_t k = 0; k < numel; k++) {
                double rv, ov, err;
                if (exact) {
                    int64_t a = tensor_get_i64(r->dtype, r->data, k), b = tensor_get_i64(r->dtype, outs[i].data, k);
                    rv = (double)a;
                    ov = (double)b;
                    err = a == b ? 0 : fabs(ov - rv) > 0 ? fabs(ov - rv) : 1;
                    if (a != b)
                        bad_elems++;
                } else {
                    rv = tensor_get_f64(r->dtype, r->data, k);
                    ov = tensor_get_f64(r->dtype, outs[i].data, k);
                    err = fabs(ov - rv);
                    if (isnan(rv) && isnan(ov))
                        err = 0; /* NaN where NaN is expected */
                    if (isinf(rv) && ov == rv)
                        err = 0;
                    /* NaN/inf references matched above have err 0; their own
                       magnitude must not turn the tolerance into NaN */
                    if (elementwise && !(err <= atol + rtol * (isfinite(rv) ? fabs(rv) : 0)))
                        bad_elems++;
                }
                if (!(err <= max_abs)) /* also catches NaN */
                    max_abs = isnan(err) ? INFINITY : err;
                if (fabs(rv) > max_ref && !isinf(rv))
                    max_ref = fabs(rv);
                double rel = err / (fabs(rv) > 1e-6 ? fabs(rv) : 1e-6);
                if (rel > max_rel)
                    max_rel = rel;
            }
            double tol = atol + rtol * max_ref;
            int ok = exact || elementwise ? bad_elems == 0 : max_abs <= tol;
            if (elementwise)
                printf("output '%s': max_abs_err=%.3g max_rel_err=%.3g elements outside %.3g+%.3g*|ref|: %lld %s\n",
                       io.out_name[i], max_abs, max_rel, atol, rtol, (long long)bad_elems, ok ? "OK" : "FAIL");
            else
                printf("output '%s': max_abs_err=%.3g max_rel_err=%.3g max|ref|=%.4g tol=%.3g %s\n", io.out_name[i],
                       max_abs, max_rel, max_ref, tol, ok ? "OK" : "FAIL");
            if (!ok)
                rc = RUN_MISMATCH;
        }
    }
done:
    if (!keep) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "ctvm-run: could not remove %s\n", dir);
    }
    arena_free(arena);
    return rc;
}
