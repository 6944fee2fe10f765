/* emit_describe.c - `ctvm-emit --describe FILE`: the API of a generated
 * model.c as JSON (jansson), for programs that drive it without reading C
 * (ctvm-run reads it). Every string is the model's exact bytes: names
 * that are not valid UTF-8 are refused here rather than mangled, since a
 * JSON string holds Unicode text only.
 *
 *   {"ctvm": "0.1.0", "prefix": "model", "target": "x86_64-avx512",
 *    "isa": "avx512", "threads": 1, "workspace_bytes": 30272,
 *    "weights_bytes": 5120, "arena_caller": false, "main": true,
 *    "entry_points": ["model_run", "model_run_ws"],
 *    "inputs": [{"name": "x", "name_hex": "78", "dtype": "float32", "shape": [1, 3, 32, 32],
 *                "size": 3072, "bytes": 12288, "dynamic": false}, ...],
 *    "outputs": [...]} */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "ir/target.h"

static json_t *io_json(const ModuleIO *io)
{
    json_t *shape = json_array();
    for (int d = 0; d < io->shape.rank; d++)
        json_array_append_new(shape, json_integer((json_int_t)io->shape.dims[d]));
    json_t *name = json_string(io->name); /* NULL when not UTF-8 */
    size_t n = strlen(io->name);
    char *hex = malloc(2 * n + 1);
    if (!hex) {
        json_decref(shape);
        json_decref(name);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)io->name[i]);
    hex[2 * n] = 0;
    json_t *o = json_pack("{s:o, s:s, s:s, s:o, s:I, s:I, s:b}", "name", name ? name : json_null(), "name_hex", hex,
                          "dtype", dtype_name(io->dtype), "shape", shape, "size", (json_int_t)io->numel, "bytes",
                          (json_int_t)io->bytes, "dynamic", io->dyn);
    free(hex);
    return o;
}

static json_t *ios_json(const ModuleIO *ios, int n, Diag *d)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = io_json(&ios[i]);
        if (!o) {
            json_decref(a);
            diag_error(d, NULL, -1, "out of memory describing the API");
            return NULL;
        }
        json_array_append_new(a, o);
    }
    return a;
}

int emit_describe(const Module *m, const EmitOptions *o, FILE *out, Diag *d)
{
    const char *P = o->prefix ? o->prefix : "model";
    json_t *in = ios_json(m->inputs, m->n_inputs, d);
    json_t *outs = in ? ios_json(m->outputs, m->n_outputs, d) : NULL;
    if (!outs) {
        json_decref(in);
        return -1;
    }
    json_t *entries = json_array();
    char name[160];
    const char *kinds[] = {"_run", "_run_ws", "_team_init", "_run_thread"};
    for (int k = 0; k < 4; k++) {
        if ((k == 0 && o->arena_caller) || (k >= 2 && m->threads < 2))
            continue;
        snprintf(name, sizeof name, "%s%s", P, kinds[k]);
        json_array_append_new(entries, json_string(name));
    }
    json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:b, s:b, s:o, s:o, s:o}", "ctvm", CTVM_VERSION,
                             "prefix", P, "target", m->target->name, "isa", m->uses_vec ? m->target->isa : "scalar",
                             "threads", m->threads, "workspace_bytes", (json_int_t)m->workspace_bytes,
                             "weights_bytes", (json_int_t)m->blob.size, "arena_caller", o->arena_caller, "main",
                             o->main_mode, "entry_points", entries, "inputs", in, "outputs", outs);
    if (!root)
        return diag_error(d, NULL, -1, "out of memory describing the API");
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(root);
    return rc == 0 ? 0 : diag_error(d, NULL, -1, "cannot write the API description");
}
