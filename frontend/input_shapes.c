/* input_shapes.c - parsing the --input-shapes option.
 *
 * Form: entries "name:[d0,d1,...]" separated by spaces or ';'. The name runs
 * up to the ':' right before '[' (TensorFlow-style names like "input:0"
 * keep their colon); dims are non-negative decimal integers; "[]" is a
 * scalar. Entries accumulate in OnnxLoadOptions; a name given twice is an
 * error. The loader applies them in onnx_inputs.c. Also --bind NAME=FILE
 * (onnx_parse_bind), applied in onnx_bind.c. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_load.h"

static int is_sep(char ch)
{
    return ch == ';' || isspace((unsigned char)ch);
}

static const char *skip_ws(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* Parses the dims after '[' at p; returns the char after ']' or NULL. */
static const char *parse_dims(const char *p, Shape *s, const char *name, Diag *d)
{
    *s = shape_unknown();
    s->rank = 0;
    p = skip_ws(p);
    if (*p == ']')
        return p + 1;
    for (;;) {
        p = skip_ws(p);
        if (!isdigit((unsigned char)*p)) {
            diag_error(d, NULL, -1, "--input-shapes: '%s': expected a non-negative integer at '%.20s'",
                       name, p);
            return NULL;
        }
        errno = 0;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (errno == ERANGE) {
            diag_error(d, NULL, -1, "--input-shapes: '%s': dimension too large", name);
            return NULL;
        }
        if (s->rank == CTVM_MAX_RANK) {
            diag_error(d, NULL, -1, "--input-shapes: '%s': more than %d dimensions", name,
                       CTVM_MAX_RANK);
            return NULL;
        }
        s->dims[s->rank++] = v;
        p = skip_ws(end);
        if (*p == ']')
            return p + 1;
        if (*p != ',') {
            diag_error(d, NULL, -1, "--input-shapes: '%s': expected ',' or ']' at '%.20s'", name,
                       *p ? p : "<end>");
            return NULL;
        }
        p++;
    }
}

int onnx_parse_input_shapes(const char *spec, OnnxLoadOptions *opt, Diag *d)
{
    const char *p = spec ? spec : "";
    for (;;) {
        while (is_sep(*p))
            p++;
        if (!*p)
            return 0;
        const char *lb = strchr(p, '[');
        if (!lb || lb == p || lb[-1] != ':' || lb - 1 == p)
            return diag_error(d, NULL, -1, "--input-shapes: expected 'name:[d0,d1,...]' at '%.40s'",
                              p);
        size_t n = (size_t)(lb - 1 - p);
        for (size_t i = 0; i < n; i++)
            if (is_sep(p[i]))
                return diag_error(d, NULL, -1,
                                  "--input-shapes: expected 'name:[d0,d1,...]' at '%.40s'", p);
        if (n >= ONNX_MAX_INPUT_NAME)
            return diag_error(d, NULL, -1, "--input-shapes: input name longer than %d characters",
                              ONNX_MAX_INPUT_NAME - 1);
        char name[ONNX_MAX_INPUT_NAME];
        memcpy(name, p, n);
        name[n] = 0;
        for (int i = 0; i < opt->n_input_shapes; i++)
            if (strcmp(opt->input_shapes[i].name, name) == 0)
                return diag_error(d, NULL, -1, "--input-shapes: input '%s' given twice", name);
        if (opt->n_input_shapes == ONNX_MAX_INPUT_SHAPES)
            return diag_error(d, NULL, -1, "--input-shapes: more than %d inputs",
                              ONNX_MAX_INPUT_SHAPES);
        Shape s;
        p = parse_dims(lb + 1, &s, name, d);
        if (!p)
            return -1;
        if (*p && !is_sep(*p))
            return diag_error(d, NULL, -1, "--input-shapes: '%s': unexpected '%.20s' after ']'",
                              name, p);
        OnnxInputShape *e = &opt->input_shapes[opt->n_input_shapes++];
        memcpy(e->name, name, n + 1);
        e->shape = s;
    }
}

int onnx_parse_bind(const char *spec, OnnxLoadOptions *opt, Diag *d)
{
    const char *eq = spec ? strchr(spec, '=') : NULL;
    if (!eq || eq == spec || !eq[1])
        return diag_error(d, NULL, -1, "--bind: expected NAME=FILE, got '%s'", spec ? spec : "");
    size_t n = (size_t)(eq - spec);
    if (n >= ONNX_MAX_INPUT_NAME)
        return diag_error(d, NULL, -1, "--bind: input name longer than %d characters",
                          ONNX_MAX_INPUT_NAME - 1);
    for (int i = 0; i < opt->n_binds; i++)
        if (strlen(opt->binds[i].name) == n && strncmp(opt->binds[i].name, spec, n) == 0)
            return diag_error(d, NULL, -1, "--bind: input '%.*s' bound twice", (int)n, spec);
    if (opt->n_binds == ONNX_MAX_BINDS)
        return diag_error(d, NULL, -1, "--bind: more than %d inputs", ONNX_MAX_BINDS);
    OnnxBind *b = &opt->binds[opt->n_binds++];
    memcpy(b->name, spec, n);
    b->name[n] = 0;
    b->path = eq + 1;
    return 0;
}
