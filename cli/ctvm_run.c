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
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "driver.h"
#include "ir/target.h"
#include "frontend/out_file.h"
#include "frontend/file_util.h"
#include "frontend/tensor_io.h"
#include "tune/spawn.h"

#define MAX_IO 64

enum { RUN_OK = 0, RUN_MISMATCH = 1, RUN_USAGE = 2, RUN_REFUSED = 3, RUN_BUILD = 4, RUN_CRASH = 5, RUN_OTHER = 6 };

typedef struct ModelIO { /* read from the API description (ctvm-emit --describe) */
    char prefix[128];
    char target[64];
    int threads;
    int n_in, n_out;
    char in_name[MAX_IO][256], out_name[MAX_IO][256];
    long in_size[MAX_IO], out_size[MAX_IO];
    long in_bytes[MAX_IO], out_bytes[MAX_IO];
    DType in_dtype[MAX_IO], out_dtype[MAX_IO];
    Shape in_shape[MAX_IO], out_shape[MAX_IO];
} ModelIO;

static void usage(FILE *f)
{
    fputs("usage: ctvm-run model.onnx|model.c --inputs FILE [FILE...] [options]\n"
          "  --inputs FILE...       .npz (entries by name), .npy or .pb (in input order; a .pb's\n"
          "                         tensor name, when set, must be the input's); each must have\n"
          "                         the input's exact dtype and shape\n"
          "  --golden FILE...       expected outputs (.npz by name, .npy/.pb in order)\n"
          "  --rtol R --atol A      pass when max|err| <= A + R*max|ref| (default 1e-3, 1e-4)\n"
          "  --elementwise          pass when every |err| <= A + R*|ref| (allclose; NaN == NaN)\n"
          "  --output FILE.npz      write the outputs\n"
          "  --print-time --repeat N  time N runs after a warm-up; print median and min\n"
          "  --input-shapes SPEC  --prefix NAME  --keep DIR (keep build files)\n"
          "  --describe FILE.json   for a model.c: its API description (ctvm-emit --describe;\n"
          "                         default: model.json beside model.c)\n"
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
          "  --runner CMD           run the binary through CMD (default: the target's qemu)\n"
          "                         CC, $CC, FLAGS and CMD are split on blanks into words and run\n"
          "                         without a shell: quotes, $VARS, globs and ; are not interpreted\n",
          f);
}

/* One "inputs"/"outputs" entry of the description into slot i of io. */
static int read_io(json_t *e, ModelIO *io, int in, int i)
{
    const char *hex = NULL, *dt = NULL;
    json_t *shape = NULL;
    json_int_t size = 0, bytes = 0;
    if (json_unpack(e, "{s:s, s:s, s:o, s:I, s:I}", "name_hex", &hex, "dtype", &dt, "shape", &shape, "size", &size,
                    "bytes", &bytes) != 0 ||
        !json_is_array(shape) || json_array_size(shape) > CTVM_MAX_RANK || strlen(hex) % 2 ||
        strlen(hex) / 2 >= sizeof io->in_name[i])
        return -1;
    char *name = in ? io->in_name[i] : io->out_name[i]; /* the exact bytes */
    static const char DIGITS[] = "0123456789abcdef";
    name[0] = 0;
    for (size_t k = 0; hex[2 * k]; k++) {
        const char *hi = strchr(DIGITS, hex[2 * k]), *lo = strchr(DIGITS, hex[2 * k + 1]);
        if (!hex[2 * k + 1] || !hi || !lo || (hi == DIGITS && lo == DIGITS))
            return -1; /* not two lowercase hex digits, or a NUL byte */
        name[k] = (char)((hi - DIGITS) << 4 | (lo - DIGITS));
        name[k + 1] = 0;
    }
    Shape *s = in ? &io->in_shape[i] : &io->out_shape[i];
    *s = shape_unknown();
    s->rank = (int)json_array_size(shape);
    for (int d = 0; d < s->rank; d++) {
        json_t *v = json_array_get(shape, (size_t)d);
        if (!json_is_integer(v))
            return -1;
        s->dims[d] = (int64_t)json_integer_value(v);
    }
    *(in ? &io->in_dtype[i] : &io->out_dtype[i]) = dtype_from_name(dt);
    *(in ? &io->in_size[i] : &io->out_size[i]) = (long)size;
    *(in ? &io->in_bytes[i] : &io->out_bytes[i]) = (long)bytes;
    return 0;
}

/* The API description ctvm-emit --describe wrote (emit_c/emit_describe.c)
 * into io; -1 after a diagnostic. */
static int read_describe(const char *path, ModelIO *io, Diag *d)
{
    json_error_t err;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return diag_error(d, NULL, -1, "%s: not an API description (%s, line %d)", path, err.text, err.line);
    memset(io, 0, sizeof *io);
    const char *prefix = NULL, *target = NULL;
    json_t *ins = NULL, *outs = NULL;
    int rc = json_unpack(root, "{s:s, s:s, s:i, s:o, s:o}", "prefix", &prefix, "target", &target, "threads",
                         &io->threads, "inputs", &ins, "outputs", &outs) == 0 && json_is_array(ins) &&
                     json_is_array(outs) && json_array_size(ins) <= MAX_IO && json_array_size(outs) <= MAX_IO
                 ? 0 : -1;
    if (rc == 0) {
        snprintf(io->prefix, sizeof io->prefix, "%s", prefix);
        snprintf(io->target, sizeof io->target, "%s", target);
        io->n_in = (int)json_array_size(ins);
        io->n_out = (int)json_array_size(outs);
        for (int i = 0; i < io->n_in && rc == 0; i++)
            rc = read_io(json_array_get(ins, (size_t)i), io, 1, i);
        for (int i = 0; i < io->n_out && rc == 0; i++)
            rc = read_io(json_array_get(outs, (size_t)i), io, 0, i);
    }
    json_decref(root);
    return rc == 0 ? 0 : diag_error(d, NULL, -1, "%s: not an API description of ctvm-emit --describe", path);
}

/* The tensors of several files, in order, each with the file it came from
 * and whether it is an .npz entry (matched by name) or not (.npy and .pb
 * go by position). */
typedef struct TensorFiles {
    Tensor *t;
    const char **file;
    int *npz;
    int n;
} TensorFiles;

static int read_all(char **files, int n_files, Arena *a, TensorFiles *tf, Diag *d)
{
    tf->t = arena_array(a, MAX_IO, sizeof *tf->t);
    tf->file = arena_array(a, MAX_IO, sizeof *tf->file);
    tf->npz = arena_array(a, MAX_IO, sizeof *tf->npz);
    tf->n = 0;
    for (int i = 0; i < n_files; i++) {
        Tensor *t;
        int k;
        if (tensor_read_file(files[i], a, &t, &k, d) != 0)
            return -1;
        for (int j = 0; j < k && tf->n < MAX_IO; j++, tf->n++) {
            tf->t[tf->n] = t[j];
            tf->file[tf->n] = files[i];
            tf->npz[tf->n] = file_has_suffix(files[i], ".npz");
        }
    }
    return 0;
}

/* "in.npz entry 'x'" or "in.npy": where tensor k came from, for messages. */
static const char *tensor_origin(const TensorFiles *tf, int k, char *buf, size_t cap)
{
    if (tf->npz[k])
        snprintf(buf, cap, "%s entry '%s'", tf->file[k], tf->t[k].name ? tf->t[k].name : "");
    else
        snprintf(buf, cap, "%s", tf->file[k]);
    return buf;
}

/* The index in tf of the tensor for the input called name: the .npz entry
 * of that name, else the next .npy/.pb tensor (*next counts them), whose
 * name (a .pb's), when it has one, must be name. -1 after a diag_error. */
static int input_tensor(const TensorFiles *tf, const char *name, int *next, Diag *d)
{
    int n_npz = 0;
    for (int k = 0; k < tf->n; k++) {
        n_npz += tf->npz[k];
        if (tf->npz[k] && tf->t[k].name && !strcmp(tf->t[k].name, name))
            return k;
    }
    while (*next < tf->n && tf->npz[*next])
        ++*next;
    if (*next < tf->n) {
        int k = (*next)++;
        const char *has = tf->t[k].name;
        if (has && has[0] && strcmp(has, name))
            return diag_error(d, NULL, -1, "input '%s': %s holds the tensor '%s', not '%s'", name, tf->file[k], has,
                              name);
        return k;
    }
    if (!n_npz)
        return diag_error(d, NULL, -1, "no input file for input '%s' (the files given hold %d tensor%s)", name, tf->n,
                          tf->n == 1 ? "" : "s");
    char list[1024] = "";
    size_t len = 0;
    for (int k = 0; k < tf->n && len < sizeof list; k++) {
        if (!tf->npz[k])
            continue;
        int first = k == 0 || !tf->npz[k - 1] || tf->file[k - 1] != tf->file[k];
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s%s'%s'", first && len ? "; " : first ? "" : ", ",
                                first ? tf->file[k] : "", first ? " holds " : "", tf->t[k].name ? tf->t[k].name : "");
    }
    return diag_error(d, NULL, -1, "input '%s': no .npz entry of that name (%s)", name, list);
}

/* The reference tensor for an output: name match, else position i. */
static Tensor *pick(const TensorFiles *tf, const char *name, int i)
{
    for (int k = 0; k < tf->n; k++)
        if (tf->t[k].name && strcmp(tf->t[k].name, name) == 0)
            return &tf->t[k];
    return i < tf->n ? &tf->t[i] : NULL;
}

/* Removes the temporary folder and what is in it, without a shell and
 * without following a symbolic link out of it (FTW_PHYS: a link is
 * removed, not what it points to). */
static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

static int remove_tree(const char *dir)
{
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Runs argv (no shell: tune/spawn.h); *text gets all it printed, kept in
 * the arena. Returns the exit status (non-zero also when it could not be
 * started: *text says why). */
static int run_argv(Arena *a, const ArgList *cmd, char **text)
{
    char *out = NULL;
    int rc = cmd->failed || !cmd->argv ? -1 : spawn_capture(cmd->argv, &out);
    *text = arena_printf(a, "%s", out ? out : cmd->failed ? "out of memory" : "");
    free(out);
    return rc;
}

int main(int argc, char **argv)
{
    const char *model = NULL, *output = NULL, *keep = NULL, *prefix = NULL, *describe = NULL;
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
        } else if (!strcmp(a, "--describe") && val) {
            describe = argv[++i];
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
            if (!cc[strspn(cc, " \t\n")]) {
                fprintf(stderr, "ctvm-run: --cc names no compiler\n");
                return 2;
            }
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
    if (output && out_check(output, &d) != 0) /* before any work */
        return 2;
    char dir[4096];
    /* a folder named -x would reach the compiler as an option: ./-x */
    if (keep) {
        snprintf(dir, sizeof dir, "%s%s", keep[0] == '-' ? "./" : "", keep);
        mkdir(dir, 0755);
    } else {
        const char *tmp = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
        snprintf(dir, sizeof dir, "%s%s/ctvm-run-XXXXXX", tmp[0] == '-' ? "./" : "", tmp);
        if (!mkdtemp(dir)) {
            perror("ctvm-run: mkdtemp");
            return 1;
        }
    }
    char model_c[4200], model_json[4200], exe[4200];
    char *text = NULL;
    ArgList cmd = {0};
    int rc = RUN_OTHER;
    Arena *arena = arena_new();
    size_t len = strlen(model);
    if (len > 2 && strcmp(model + len - 2, ".c") == 0) {
        snprintf(model_c, sizeof model_c, "%s", model); /* never starts with '-' (an option) */
        if (describe) /* else the description beside it: model.c -> model.json */
            snprintf(model_json, sizeof model_json, "%s", describe);
        else
            snprintf(model_json, sizeof model_json, "%.*s.json", (int)(len - 2), model);
    } else {
        snprintf(model_c, sizeof model_c, "%s/model.c", dir);
        snprintf(model_json, sizeof model_json, "%s/model.json", dir);
        co.model = model;
        co.out_c = model_c;
        co.describe = model_json;
        co.emit.prefix = prefix ? prefix : "model";
        co.target = target;
        co.threads = threads;
        co.emit.command_line = "ctvm-run";
        co.emit.main_mode = 1;
        if (driver_compile(&co, &d) != 0) {
            rc = RUN_REFUSED;
            goto done;
        }
    }
    ModelIO io;
    if (read_describe(model_json, &io, &d) != 0)
        goto done;
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
    if (!cc || !cc[strspn(cc, " \t\n")]) /* unset, or $CC empty */
        cc = tg ? tg->cc : "gcc";
    if (!runner)
        runner = cross ? tg->runner : "";
    if (app_threads && io.threads < 2) {
        diag_error(&d, NULL, -1, "--app-threads needs a model emitted with --threads 2 or more");
        goto done;
    }
    /* cc cflags [target flags] [-fopenmp] [team] [-DCTVM_PROFILE] [-static] -std=c99 -DCTVM_MAIN
       -o exe model.c -lm: each option split on blanks into words, no shell */
    arglist_add_words(&cmd, cc);
    arglist_add_words(&cmd, cflags);
    if (tg && (isa_flags || !tg->isa_in_file))
        arglist_add_words(&cmd, tg->cflags);
    if (io.threads > 1 && !app_threads)
        arglist_add(&cmd, "-fopenmp");
    if (app_threads) {
        char team[48];
        snprintf(team, sizeof team, "-DCTVM_MAIN_TEAM=%d", app_threads);
        arglist_add(&cmd, "-pthread");
        arglist_add(&cmd, team);
        if (app_barrier)
            arglist_add(&cmd, "-DCTVM_MAIN_TEAM_PBARRIER");
    }
    if (profile)
        arglist_add(&cmd, "-DCTVM_PROFILE");
    if (cross)
        arglist_add(&cmd, "-static");
    arglist_add(&cmd, "-std=c99");
    arglist_add(&cmd, "-DCTVM_MAIN");
    arglist_add(&cmd, "-o");
    arglist_add(&cmd, exe);
    arglist_add(&cmd, model_c);
    arglist_add(&cmd, "-lm");
    if (run_argv(arena, &cmd, &text) != 0) {
        diag_error(&d, NULL, -1, "building the generated code failed:\n%s", text);
        rc = RUN_BUILD;
        goto done;
    }
    TensorFiles in_t;
    if (read_all(inputs, n_inputs, arena, &in_t, &d) != 0)
        goto done;
    for (int i = 0, next = 0; i < io.n_in; i++) {
        int k = input_tensor(&in_t, io.in_name[i], &next, &d);
        if (k < 0)
            goto done;
        Tensor *t = &in_t.t[k];
        int64_t numel = 0, bytes = 0;
        if (t->dtype == DT_UINT16 && io.in_dtype[i] == DT_BFLOAT16)
            t->dtype = DT_BFLOAT16; /* onnx < 1.14 test data: bfloat16 bits typed uint16 */
        /* exactly the input's dtype and shape: no reshaping implied ([3072] or [3,32,32,1]
           for [1,3,32,32], a scalar for [1]) */
        if (t->dtype != io.in_dtype[i] || !shape_equal(&t->shape, &io.in_shape[i])) {
            char want[96], got[96], from[1024];
            diag_error(&d, NULL, -1, "input '%s' is %s %s; %s holds %s %s", io.in_name[i], dtype_name(io.in_dtype[i]),
                       shape_str(&io.in_shape[i], want, sizeof want), tensor_origin(&in_t, k, from, sizeof from),
                       dtype_name(t->dtype), shape_str(&t->shape, got, sizeof got));
            goto done;
        }
        if (!shape_numel(&t->shape, &numel) || !dtype_bytes(t->dtype, numel, &bytes) || bytes != io.in_bytes[i]) {
            diag_error(&d, NULL, -1, "input '%s': the file's %lld bytes are not the %ld the model's API declares",
                       io.in_name[i], (long long)bytes, io.in_bytes[i]);
            goto done;
        }
        char p[4200];
        snprintf(p, sizeof p, "%s/in%d.bin", dir, i);
        if (out_write_all(p, t->data, (size_t)io.in_bytes[i], &d) != 0) /* --keep DIR may be the user's folder */
            goto done;
    }
    char repeats[32];
    snprintf(repeats, sizeof repeats, "%d", print_time ? repeat : 1);
    arglist_free(&cmd);
    arglist_add_words(&cmd, runner);
    arglist_add(&cmd, exe);
    arglist_add(&cmd, dir);
    arglist_add(&cmd, dir);
    arglist_add(&cmd, repeats);
    if (run_argv(arena, &cmd, &text) != 0) {
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
        TensorFiles ref;
        if (read_all(golden, n_golden, arena, &ref, &d) != 0) {
            rc = RUN_OTHER;
            goto done;
        }
        for (int i = 0; i < io.n_out; i++) {
            Tensor *r = pick(&ref, io.out_name[i], i);
            int64_t numel = 0;
            char want[96], got[96];
            if (r && r->dtype == DT_UINT16 && outs[i].dtype == DT_BFLOAT16)
                r->dtype = DT_BFLOAT16; /* as for the inputs above */
            if (!r) {
                printf("output '%s': no reference (the golden files hold %d tensor%s): FAIL\n", io.out_name[i], ref.n,
                       ref.n == 1 ? "" : "s");
                rc = RUN_MISMATCH;
                continue;
            }
            if (!shape_numel(&r->shape, &numel) || numel != io.out_size[i] ||
                (r->shape.rank == io.out_shape[i].rank && !shape_equal(&r->shape, &io.out_shape[i]))) {
                char from[1024];
                printf("output '%s' is %s %s; %s holds %s %s: FAIL\n", io.out_name[i], dtype_name(outs[i].dtype),
                       shape_str(&io.out_shape[i], want, sizeof want), tensor_origin(&ref, (int)(r - ref.t), from, sizeof from),
                       dtype_name(r->dtype), shape_str(&r->shape, got, sizeof got));
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
    arglist_free(&cmd);
    if (!keep && remove_tree(dir) != 0)
        fprintf(stderr, "ctvm-run: could not remove %s\n", dir);
    arena_free(arena);
    return rc;
}
