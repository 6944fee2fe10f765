/* test_tensor_io.c - unit tests of the tensor file readers and writers
 * (frontend/tensor_io.h): .npy/.npz round trips, files written by numpy
 * itself (generated at test time with /usr/bin/python3; skipped when numpy
 * is missing) and numpy reading ours, ONNX TensorProto .pb files, and clear
 * refusals of malformed files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "frontend/tensor_io.h"
#include "onnx/onnx.pb-c.h"

static char tmpdir[64];
static Arena *arena;

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/ctvm_tio_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    arena = arena_new();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    arena_free(arena);
    return system(cmd) == 0 ? 0 : -1;
}

static Diag quiet_diag(void)
{
    Diag d;
    memset(&d, 0, sizeof d);
    d.tool = "test";
    d.quiet = 1;
    return d;
}

static const char *tmp_path(const char *name)
{
    return arena_printf(arena, "%s/%s", tmpdir, name);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static int have_numpy(void)
{
    return system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
}

/* Runs a python script (given as text) with the temp folder as argv[1]. */
static int run_python(const char *script)
{
    const char *py = tmp_path("script.py");
    write_bytes(py, script, strlen(script));
    char *cmd = arena_printf(arena, "/usr/bin/python3 '%s' '%s'", py, tmpdir);
    return system(cmd);
}

static Tensor make_tensor(const char *name, DType dt, int rank, const int64_t *dims,
                          const void *data)
{
    Tensor t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.dtype = dt;
    t.shape = shape_make(rank, dims);
    int64_t n = 1;
    shape_numel(&t.shape, &n);
    t.data = arena_alloc(arena, (size_t)n * dtype_size(dt) + 1);
    memcpy(t.data, data, (size_t)n * dtype_size(dt));
    return t;
}

static void assert_same_tensor(const Tensor *a, const Tensor *b)
{
    assert_int_equal(a->dtype, b->dtype);
    assert_true(shape_equal(&a->shape, &b->shape));
    int64_t n = 0;
    assert_true(shape_numel(&a->shape, &n));
    assert_memory_equal(a->data, b->data, (size_t)n * dtype_size(a->dtype));
}

/* ---- round trips ---- */

static void test_npy_roundtrip(void **state)
{
    (void)state;
    const float f32[6] = {1.5f, -2.0f, 3.25f, 0.0f, 1e-20f, -7.0f};
    const double f64[3] = {0.1, -1e300, 2.5};
    const int64_t i64[2] = {INT64_MIN, 42};
    const int32_t i32[4] = {-1, 2, -3, 2147483647};
    const int8_t i8[3] = {-128, 0, 127};
    const uint8_t u8[2] = {0, 255};
    const uint8_t b1[1] = {1};
    const uint16_t f16[2] = {0x3c00, 0xc000};
    const int64_t d23[2] = {2, 3}, d3[1] = {3}, d2[1] = {2}, d4[3] = {1, 2, 2}, dz[2] = {0, 4};
    Tensor in[] = {
        make_tensor(NULL, DT_FLOAT32, 2, d23, f32), make_tensor(NULL, DT_FLOAT64, 1, d3, f64),
        make_tensor(NULL, DT_INT64, 1, d2, i64),    make_tensor(NULL, DT_INT32, 3, d4, i32),
        make_tensor(NULL, DT_INT8, 1, d3, i8),      make_tensor(NULL, DT_UINT8, 1, d2, u8),
        make_tensor(NULL, DT_BOOL, 0, NULL, b1),    make_tensor(NULL, DT_FLOAT16, 1, d2, f16),
        make_tensor(NULL, DT_FLOAT32, 2, dz, f32),
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        Diag d = quiet_diag();
        const char *p = tmp_path(arena_printf(arena, "t%zu.npy", i));
        assert_int_equal(tensor_write_npy(p, &in[i], &d), 0);
        Tensor *out;
        int n = 0;
        assert_int_equal(tensor_read_file(p, arena, &out, &n, &d), 0);
        assert_int_equal(n, 1);
        assert_null(out[0].name);
        assert_same_tensor(&in[i], &out[0]);
    }
}

static void test_npz_roundtrip(void **state)
{
    (void)state;
    const float a[4] = {1, 2, 3, 4};
    const int64_t b[3] = {-5, 6, 7};
    const uint8_t c[2] = {9, 10};
    const int64_t d22[2] = {2, 2}, d3[1] = {3}, d2[1] = {2};
    Tensor in[3] = {make_tensor("a", DT_FLOAT32, 2, d22, a), make_tensor("b", DT_INT64, 1, d3, b),
                    make_tensor(NULL, DT_UINT8, 1, d2, c)};
    Diag d = quiet_diag();
    const char *p = tmp_path("several.npz");
    assert_int_equal(tensor_write_npz(p, in, 3, &d), 0);
    Tensor *out;
    int n = 0;
    assert_int_equal(tensor_read_file(p, arena, &out, &n, &d), 0);
    assert_int_equal(n, 3);
    assert_string_equal(out[0].name, "a");
    assert_string_equal(out[1].name, "b");
    assert_string_equal(out[2].name, "arr_2");
    for (int i = 0; i < 3; i++)
        assert_same_tensor(&in[i], &out[i]);
}

/* ---- files made by numpy, and numpy reading ours ---- */

static const char NUMPY_WRITER[] =
    "import sys, numpy as np\n"
    "d = sys.argv[1]\n"
    "np.save(d + '/f4.npy', np.arange(6, dtype='<f4').reshape(2, 3) * 0.5)\n"
    "np.save(d + '/f8.npy', np.array([1.25, -3.5]))\n"
    "np.save(d + '/i8.npy', np.array([[-1], [2 ** 40]], dtype='<i8'))\n"
    "np.save(d + '/i4.npy', np.array([7, -8, 9], dtype='<i4'))\n"
    "np.save(d + '/u1.npy', np.array([0, 200, 255], dtype='u1'))\n"
    "np.save(d + '/i1.npy', np.array([-128, 5], dtype='i1'))\n"
    "np.save(d + '/b1.npy', np.array([True, False, True]))\n"
    "np.save(d + '/f2.npy', np.array([1.0, -0.5], dtype='<f2'))\n"
    "np.save(d + '/scalar.npy', np.float32(3.5))\n"
    "np.save(d + '/fortran.npy', np.asfortranarray(np.ones((2, 3), dtype='<f4')))\n"
    "np.save(d + '/big.npy', np.array([1.5, -2.0, 3.25], dtype='>f4'))\n"
    "np.save(d + '/bf16.npy', np.array([0x3fc0, 0xc000], dtype='<u2').view([('bfloat16', '<u2')]))\n"
    "np.save(d + '/c8.npy', np.ones(3, dtype='<c8'))\n"
    "for v in [(2, 0), (3, 0)]:\n"
    "    with open(d + '/v%d.npy' % v[0], 'wb') as f:\n"
    "        np.lib.format.write_array(f, np.array([1.0, 2.0, 3.0], dtype='<f4'), version=v)\n"
    "x = np.arange(12, dtype='<f4').reshape(3, 4)\n"
    "y = np.array([1, 2, 3], dtype='<i8')\n"
    "np.savez(d + '/stored.npz', x=x, y=y)\n"
    "np.savez_compressed(d + '/deflated.npz', x=x, y=y)\n"
    "import zipfile\n"
    "with zipfile.ZipFile(d + '/odd.npz', 'w') as z:\n"
    "    z.writestr('readme.txt', 'hello')\n";

static void read_one(const char *name, Tensor *t)
{
    Diag d = quiet_diag();
    Tensor *out;
    int n = 0;
    if (tensor_read_file(tmp_path(name), arena, &out, &n, &d) != 0)
        fail_msg("%s: %s", name, d.last);
    assert_int_equal(n, 1);
    *t = out[0];
}

static void expect_read_error(const char *name, const char *reason)
{
    Diag d = quiet_diag();
    Tensor *out;
    int n = 0;
    const char *p = tmp_path(name);
    if (tensor_read_file(p, arena, &out, &n, &d) != -1 || !strstr(d.last, reason) ||
        !strstr(d.last, p))
        fail_msg("%s: expected an error naming the file with '%s', got '%s'", name, reason,
                 d.last);
}

static void test_numpy_written(void **state)
{
    (void)state;
    if (!have_numpy())
        skip();
    assert_int_equal(run_python(NUMPY_WRITER), 0);
    Tensor t;
    read_one("f4.npy", &t);
    assert_int_equal(t.dtype, DT_FLOAT32);
    assert_int_equal(t.shape.rank, 2);
    assert_int_equal(t.shape.dims[1], 3);
    assert_float_equal(((float *)t.data)[5], 2.5f, 0);
    read_one("f8.npy", &t);
    assert_int_equal(t.dtype, DT_FLOAT64);
    assert_float_equal(((double *)t.data)[1], -3.5, 0);
    read_one("i8.npy", &t);
    assert_int_equal(t.dtype, DT_INT64);
    assert_int_equal(t.shape.dims[0], 2);
    assert_int_equal(t.shape.dims[1], 1);
    assert_int_equal(((int64_t *)t.data)[1], INT64_C(1) << 40);
    read_one("i4.npy", &t);
    assert_int_equal(t.dtype, DT_INT32);
    assert_int_equal(((int32_t *)t.data)[1], -8);
    read_one("u1.npy", &t);
    assert_int_equal(t.dtype, DT_UINT8);
    assert_int_equal(((uint8_t *)t.data)[1], 200);
    read_one("i1.npy", &t);
    assert_int_equal(t.dtype, DT_INT8);
    assert_int_equal(((int8_t *)t.data)[0], -128);
    read_one("b1.npy", &t);
    assert_int_equal(t.dtype, DT_BOOL);
    assert_int_equal(((uint8_t *)t.data)[2], 1);
    assert_int_equal(((uint8_t *)t.data)[1], 0);
    read_one("f2.npy", &t);
    assert_int_equal(t.dtype, DT_FLOAT16);
    assert_float_equal(tensor_get_f64(DT_FLOAT16, t.data, 1), -0.5, 0);
    read_one("big.npy", &t); /* big-endian elements are swapped on reading */
    assert_int_equal(t.dtype, DT_FLOAT32);
    assert_float_equal(((float *)t.data)[0], 1.5f, 0);
    assert_float_equal(((float *)t.data)[2], 3.25f, 0);
    read_one("bf16.npy", &t); /* bfloat16 as a one-field structured dtype */
    assert_int_equal(t.dtype, DT_BFLOAT16);
    assert_float_equal(tensor_get_f64(DT_BFLOAT16, t.data, 0), 1.5, 0);
    assert_float_equal(tensor_get_f64(DT_BFLOAT16, t.data, 1), -2.0, 0);
    read_one("scalar.npy", &t);
    assert_int_equal(t.shape.rank, 0);
    assert_float_equal(*(float *)t.data, 3.5f, 0);
    read_one("v2.npy", &t);
    assert_float_equal(((float *)t.data)[2], 3.0f, 0);
    read_one("v3.npy", &t);
    assert_int_equal(t.shape.dims[0], 3);
    assert_float_equal(((float *)t.data)[1], 2.0f, 0);

    const char *npz[2] = {"stored.npz", "deflated.npz"};
    for (int k = 0; k < 2; k++) {
        Diag d = quiet_diag();
        Tensor *out;
        int n = 0;
        assert_int_equal(tensor_read_file(tmp_path(npz[k]), arena, &out, &n, &d), 0);
        assert_int_equal(n, 2);
        assert_string_equal(out[0].name, "x");
        assert_int_equal(out[0].shape.dims[0], 3);
        assert_int_equal(out[0].shape.dims[1], 4);
        for (int i = 0; i < 12; i++)
            assert_float_equal(((float *)out[0].data)[i], (float)i, 0);
        assert_string_equal(out[1].name, "y");
        assert_int_equal(out[1].dtype, DT_INT64);
        assert_int_equal(((int64_t *)out[1].data)[2], 3);
    }

    expect_read_error("fortran.npy", "fortran_order");
    expect_read_error("c8.npy", "unsupported dtype '<c8'");
    expect_read_error("odd.npz", "entry 'readme.txt' is not an .npy file");
}

static const char NUMPY_CHECKER[] =
    "import sys, numpy as np\n"
    "d = sys.argv[1]\n"
    "z = np.load(d + '/ours.npz')\n"
    "assert sorted(z.files) == ['out', 'probs'], z.files\n"
    "assert z['out'].dtype == np.float32 and z['out'].shape == (2, 2)\n"
    "assert (z['out'] == np.array([[1, 2], [3, 4]], dtype=np.float32)).all()\n"
    "assert z['probs'].dtype == np.int64 and z['probs'].shape == (3,)\n"
    "assert list(z['probs']) == [-1, 0, 1]\n"
    "a = np.load(d + '/ours.npy')\n"
    "assert a.dtype == np.float16 and a.shape == () and a == 1.0\n";

static void test_numpy_reads_ours(void **state)
{
    (void)state;
    if (!have_numpy())
        skip();
    const float o[4] = {1, 2, 3, 4};
    const int64_t p[3] = {-1, 0, 1};
    const uint16_t one = 0x3c00;
    const int64_t d22[2] = {2, 2}, d3[1] = {3};
    Tensor ts[2] = {make_tensor("out", DT_FLOAT32, 2, d22, o),
                    make_tensor("probs", DT_INT64, 1, d3, p)};
    Tensor h = make_tensor(NULL, DT_FLOAT16, 0, NULL, &one);
    Diag d = quiet_diag();
    assert_int_equal(tensor_write_npz(tmp_path("ours.npz"), ts, 2, &d), 0);
    assert_int_equal(tensor_write_npy(tmp_path("ours.npy"), &h, &d), 0);
    assert_int_equal(run_python(NUMPY_CHECKER), 0);
}

/* ---- ONNX TensorProto files ---- */

static void write_tensor_proto(const char *name, const Onnx__TensorProto *tp)
{
    size_t len = onnx__tensor_proto__get_packed_size(tp);
    uint8_t *buf = arena_alloc(arena, len + 1);
    onnx__tensor_proto__pack(tp, buf);
    write_bytes(tmp_path(name), buf, len);
}

static void test_pb(void **state)
{
    (void)state;
    Onnx__TensorProto tp;
    onnx__tensor_proto__init(&tp);
    int64_t dims[2] = {2, 2};
    int32_t halves[4] = {0x3c00, 0x4000, 0xbc00, 0};
    tp.name = "h";
    tp.has_data_type = 1;
    tp.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
    tp.n_dims = 2;
    tp.dims = dims;
    tp.n_int32_data = 4;
    tp.int32_data = halves;
    write_tensor_proto("h.pb", &tp);
    Tensor t;
    read_one("h.pb", &t);
    assert_string_equal(t.name, "h");
    assert_int_equal(t.dtype, DT_FLOAT16);
    assert_float_equal(tensor_get_f64(DT_FLOAT16, t.data, 1), 2.0, 0);
    assert_float_equal(tensor_get_f64(DT_FLOAT16, t.data, 2), -1.0, 0);

    uint8_t raw[10] = {0};
    tp.n_int32_data = 0;
    tp.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    tp.has_raw_data = 1;
    tp.raw_data.len = sizeof raw;
    tp.raw_data.data = raw;
    write_tensor_proto("short.pb", &tp);
    expect_read_error("short.pb", "raw_data has 10 bytes, expected 16");

    write_bytes(tmp_path("empty.pb"), "", 0);
    expect_read_error("empty.pb", "empty file");
    write_bytes(tmp_path("junk.pb"), "\xff\xff\xff\xff\xff", 5);
    expect_read_error("junk.pb", "not an ONNX TensorProto");
}

/* ---- malformed files ---- */

/* Puts `text` as the header dict of an .npy image whose header is hlen bytes. */
static void set_header(unsigned char *buf, size_t hlen, const char *text)
{
    memset(buf + 10, ' ', hlen);
    memcpy(buf + 10, text, strlen(text));
    buf[10 + hlen - 1] = '\n';
}

static void test_malformed(void **state)
{
    (void)state;
    write_bytes(tmp_path("magic.npy"), "PK\x03\x04 this is not npy at all", 26);
    expect_read_error("magic.npy", "bad magic");
    write_bytes(tmp_path("short.npy"), "\x93NUMPY", 6);
    expect_read_error("short.npy", "bad magic");

    /* a good header, then cut */
    const char head[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    unsigned char buf[256] = {0};
    size_t hlen = 118; /* 10 + 118 = 128 */
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)hlen;
    buf[9] = 0;
    set_header(buf, hlen, head);
    write_bytes(tmp_path("cuthead.npy"), buf, 60);
    expect_read_error("cuthead.npy", "truncated .npy header");
    write_bytes(tmp_path("cutdata.npy"), buf, 128 + 20);
    expect_read_error("cutdata.npy", "needs 24 bytes, the file has 20 (truncated)");
    write_bytes(tmp_path("longdata.npy"), buf, 128 + 28);
    expect_read_error("longdata.npy", "needs 24 bytes, the file has 28");
    write_bytes(tmp_path("exact.npy"), buf, 128 + 24);
    Tensor t;
    read_one("exact.npy", &t);
    assert_int_equal(t.shape.dims[1], 3);

    set_header(buf, hlen, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }");
    write_bytes(tmp_path("struct.npy"), buf, 128 + 24);
    expect_read_error("struct.npy", "structured dtypes");
    set_header(buf, hlen, "{'descr': '<f4', 'shape': (2,), }");
    write_bytes(tmp_path("nokey.npy"), buf, 128 + 8);
    expect_read_error("nokey.npy", "lacks");
    set_header(buf, hlen, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }");
    write_bytes(tmp_path("negdim.npy"), buf, 128 + 8);
    expect_read_error("negdim.npy", "malformed .npy header");
    set_header(buf, hlen, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}");
    write_bytes(tmp_path("extrakey.npy"), buf, 128 + 8);
    expect_read_error("extrakey.npy", "unknown key");
    buf[6] = 9;
    write_bytes(tmp_path("version.npy"), buf, 128);
    expect_read_error("version.npy", "format version 9");

    /* found by fuzz_tensor: a 200-byte .npz whose entry declares 4 GB was
       allocated before a byte was read (fuzz/regressions/, after the
       target's selector byte) */
    FILE *rf = fopen("fuzz/regressions/fuzz_tensor/npz-declared-4gb-entry", "rb");
    assert_non_null(rf);
    unsigned char zbuf[4096];
    size_t zlen = fread(zbuf, 1, sizeof zbuf, rf);
    fclose(rf);
    assert_true(zlen > 1);
    write_bytes(tmp_path("bomb.npz"), zbuf + 1, zlen - 1);
    expect_read_error("bomb.npz", "compressed bytes can hold");

    write_bytes(tmp_path("notzip.npz"), "hello", 5);
    expect_read_error("notzip.npz", "not a readable .npz");
    write_bytes(tmp_path("what.csv"), "1,2", 3);
    expect_read_error("what.csv", "unknown tensor file type");
    expect_read_error("missing.npy", "cannot open");
}

static void test_write_errors(void **state)
{
    (void)state;
    const float v[1] = {1};
    const int64_t d1[1] = {1};
    Tensor t = make_tensor("t", DT_FLOAT32, 1, d1, v);
    Diag d = quiet_diag();
    assert_int_equal(tensor_write_npy("/nonexistent-dir/x.npy", &t, &d), -1);
    assert_non_null(strstr(d.last, "cannot create"));
    t.dtype = DT_UNDEFINED;
    assert_int_equal(tensor_write_npz(tmp_path("bad.npz"), &t, 1, &d), -1);
    assert_non_null(strstr(d.last, "no .npy equivalent"));
    assert_int_equal(access(tmp_path("bad.npz"), F_OK), -1); /* nothing left behind */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_npy_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_npz_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numpy_written, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numpy_reads_ours, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pb, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
