/* shape.c - shape helpers shared by every stage. */
#include "shape.h"

#include <stdio.h>
#include <string.h>

#include "arena.h"

Shape shape_unknown(void)
{
    Shape s;
    memset(&s, 0, sizeof s);
    s.rank = -1;
    return s;
}

Shape shape_make(int rank, const int64_t *dims)
{
    Shape s = shape_unknown();
    s.rank = rank;
    for (int i = 0; i < rank; i++)
        s.dims[i] = dims[i];
    return s;
}

int shape_is_static(const Shape *s)
{
    if (s->rank < 0)
        return 0;
    for (int i = 0; i < s->rank; i++)
        if (s->dims[i] < 0)
            return 0;
    return 1;
}

int shape_numel(const Shape *s, int64_t *n)
{
    if (!shape_is_static(s))
        return 0;
    int64_t acc = 1;
    for (int i = 0; i < s->rank; i++)
        if (!i64_mul(acc, s->dims[i], &acc))
            return 0;
    *n = acc;
    return 1;
}

int shape_equal(const Shape *a, const Shape *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

void shape_strides(const Shape *s, int64_t *strides)
{
    int64_t acc = 1;
    for (int i = s->rank - 1; i >= 0; i--) {
        strides[i] = acc;
        acc *= s->dims[i];
    }
}

char *shape_str(const Shape *s, char *buf, int cap)
{
    if (s->rank < 0) {
        snprintf(buf, (size_t)cap, "[?]");
        return buf;
    }
    int n = snprintf(buf, (size_t)cap, "[");
    for (int i = 0; i < s->rank && n < cap; i++) {
        if (s->dims[i] < 0)
            n += snprintf(buf + n, (size_t)(cap - n), "%s?", i ? "," : "");
        else
            n += snprintf(buf + n, (size_t)(cap - n), "%s%lld", i ? "," : "", (long long)s->dims[i]);
    }
    if (n < cap)
        snprintf(buf + n, (size_t)(cap - n), "]");
    return buf;
}

int shape_broadcast(const Shape *a, const Shape *b, Shape *out)
{
    if (a->rank < 0 || b->rank < 0)
        return 0;
    int r = a->rank > b->rank ? a->rank : b->rank;
    Shape o = shape_unknown();
    o.rank = r;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da == db || db == 1)
            o.dims[i] = da;
        else if (da == 1)
            o.dims[i] = db;
        else
            return 0;
    }
    *out = o;
    return 1;
}
