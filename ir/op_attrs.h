/* op_attrs.h - typed attributes: what a family's infer resolved, read by
 * the compute definitions, the schedules and the passes.
 *
 * A family's infer (ops/<family>.c) validates the ONNX attributes, applies
 * their defaults and fills its struct here ONCE; nothing downstream looks
 * an attribute up by name or repeats a default. The rule, checked by
 * tests/unit/test_typed_attrs.c: in ops/, schedule/, lower/ and emit_c/ an
 * attribute is looked up by name (attr_int, attr_ints, attr_float,
 * attr_string, node_attr...) only in functions whose names contain "infer"
 * or "read" (the infer functions and the helpers that read the ONNX
 * attributes for them), and the "read" helpers are called only from such
 * functions. The ONNX attributes stay
 * on the node (normalised) for the graph dump and diagnostics. Modes that
 * ctvm invents (a layout pass's packing, a kernel's scratch buffer, the
 * legacy broadcast axis...) live only here, never as ONNX attributes.
 * Node.at is a union: the member is the one of the node's family (the
 * comment on each struct names its operators). Passes that rewrite a node
 * after inference update the member. graph_dump prints the ctvm-invented
 * fields with op_attrs_print. */
#ifndef CTVM_IR_OP_ATTRS_H
#define CTVM_IR_OP_ATTRS_H

#include <stdint.h>
#include <stdio.h>

#include "dtype.h"
#include "shape.h"

#define OP_ATTRS_MAX_AXES 6 /* spatial axes of a window: CTVM_MAX_RANK - 2 */

/* A sliding window (Conv, the pools, Col2Im...): pads begins then ends,
 * auto_pad resolved. */
typedef struct WindowAttrs {
    int n; /* spatial axes; 0 until infer resolved the window */
    int64_t kernel[OP_ATTRS_MAX_AXES], strides[OP_ATTRS_MAX_AXES], dilations[OP_ATTRS_MAX_AXES];
    int64_t pads[2 * OP_ATTRS_MAX_AXES];
} WindowAttrs;

/* Conv, ConvTranspose, DeformConv, ctvm.ConvNCHWc (2 axes; group in
 * channel blocks), ctvm.WinogradConv (pads only); QLinearConv and
 * ConvInteger through QLinearAttrs.conv */
typedef struct ConvAttrs {
    WindowAttrs win;
    int64_t group;
    int64_t offset_group; /* DeformConv */
    int depthwise;        /* ConvNCHWc: one input channel block per output block (pass layout) */
    int out_float;        /* QConvNCHWc: output float32 (the int32 sum converted), else int32 */
    int64_t panel;        /* QMatMul: B packed in panels of this many columns (0: none) */
    int64_t in_channels;  /* QConvNCHWc: the input's channels before blocking (0: unknown) */
    int ws_scaled;        /* QConvNCHWc, QMatMul: the weight sums input holds zero point x sum
                             (a constant zero point, multiplied in by pass layout) */
} ConvAttrs;

/* MaxPool, AveragePool, LpPool and the global pools */
typedef struct PoolAttrs {
    WindowAttrs win;       /* the windowed pools (n = 0 for the global ones) */
    float p;               /* LpPool's exponent */
    int count_include_pad; /* AveragePool */
    int storage_order;     /* MaxPool's Indices: 1 column-major */
    int blocked;           /* input and output [N, C/B, H, W, B] (pass layout) */
} PoolAttrs;

/* Gemm (MatMul has no attributes) */
typedef struct GemmAttrs {
    int trans_a, trans_b;
    float alpha, beta;
} GemmAttrs;

/* Concat, Split, Gather, GatherElements, GatherND, ReverseSequence */
typedef struct AxisAttrs {
    int axis;             /* >= 0; ReverseSequence: the time axis */
    int batch_axis;       /* ReverseSequence */
    int64_t batch_dims;   /* GatherND */
    int n_split;          /* Split: the sizes of its outputs (arena) */
    const int64_t *split;
} AxisAttrs;

/* Slice: per input axis, resolved from the inputs or attributes */
typedef struct SliceAttrs {
    int64_t starts[CTVM_MAX_RANK], ends[CTVM_MAX_RANK], steps[CTVM_MAX_RANK];
} SliceAttrs;

/* Transpose */
typedef struct TransposeAttrs {
    int64_t perm[CTVM_MAX_RANK];
} TransposeAttrs;

/* ReduceSum, ReduceMean, ... (the axes: sorted, >= 0); ArgMax, ArgMin (axis) */
typedef struct ReduceAttrs {
    int n_axes;
    int64_t axes[CTVM_MAX_RANK];
    int keepdims;
    int noop;             /* empty axes reduce nothing (noop_with_empty_axes) */
    int axis;             /* ArgMax, ArgMin */
    int select_last_index;
} ReduceAttrs;

/* InstanceNormalization, GroupNormalization, LayerNormalization,
 * RMSNormalization, MeanVarianceNormalization, LpNormalization, LRN */
typedef struct NormAttrs {
    float epsilon;
    int axis;             /* LayerNorm, RMSNorm, LpNorm: >= 0 */
    int64_t num_groups;   /* GroupNorm */
    int stash_f32;        /* GroupNorm >= 21: statistics in float32 */
    int p;                /* LpNorm: 1 or 2 */
    int n_axes;           /* MVN: the normalised axes */
    int64_t axes[CTVM_MAX_RANK];
    int64_t size;         /* LRN */
    float alpha, beta, bias;
} NormAttrs;

/* Col2Im: the image block and the column grid, with its window */
typedef struct Col2ImAttrs {
    WindowAttrs win;
    int64_t block[OP_ATTRS_MAX_AXES], cols[OP_ATTRS_MAX_AXES];
} Col2ImAttrs;

/* BatchNormalization */
typedef struct BatchNormAttrs {
    float epsilon, momentum;
    int training; /* batch statistics (versions < 7: is_test 0; later: the mean output is used) */
    int spatial;  /* statistics per channel (versions < 9 may say 0) */
} BatchNormAttrs;

/* CumSum, CumProd */
typedef struct CumSumAttrs {
    int axis; /* >= 0 from the constant axis input */
    int exclusive, reverse;
} CumSumAttrs;

/* Softmax, LogSoftmax, Hardmax */
typedef struct SoftmaxAttrs {
    int axis;     /* >= 0 (-1 on a Softmax a pass made, until it is inferred) */
    int coerce2d; /* versions < 13: the input is coerced to 2-D at axis */
} SoftmaxAttrs;

/* RNN, LSTM, GRU */
#define RNN_MAX_ACTS 6 /* 3 activations in each of 2 directions */
typedef struct RnnAttrs {
    int64_t hidden;                           /* H */
    int dirs;                                 /* 0 forward, 1 reverse, 2 bidirectional */
    int layout;                               /* ONNX layout (version >= 14) */
    int linear_before_reset, input_forget;
    float clip;                               /* 0: none */
    int n_act;
    int act[RNN_MAX_ACTS];                    /* activation codes (ops/rnn.c) */
    float act_alpha[RNN_MAX_ACTS], act_beta[RNN_MAX_ACTS];
    /* constant W and R re-laid out by pass layout */
    int w_transposed;                         /* W, R stored [D, I, G*H] */
    int64_t w_panels;                         /* > 1: W packed in panels of this many columns */
    int64_t r_panels;                         /* > 1: R packed in panels */
    int q8;                                   /* LSTM's int8 form (set by pass lower_msquant): X uint8, inputs 8..13 */
    int64_t r_pad;                            /* int8 R panels: bytes of padding after each */
} RnnAttrs;

/* Resize (and Upsample): the resolved modes, per axis */
typedef struct ResizeAttrs {
    int mode, ctm, nearest; /* codes of ops/resize.c */
    int antialias, exclude_outside;
    float cubic_a, extrapolation;
    int64_t scale_bits[CTVM_MAX_RANK]; /* the float64 scale of each axis, as its IEEE bits */
    int64_t resized[CTVM_MAX_RANK];    /* 1: the axis is resized */
    int64_t roi_pos[CTVM_MAX_RANK];    /* position of the axis in roi */
    int roi_n;
} ResizeAttrs;

/* Pad, CenterCropPad */
typedef struct PadAttrs {
    int64_t pads[2 * CTVM_MAX_RANK]; /* every axis: begins, then ends (negative: crop) */
    int mode;                        /* PM_* of ops/pad.c */
    int cv_input;                    /* the constant value is input 2 */
    float value;                     /* else this constant */
    int value_given;                 /* versions < 11: the value attribute is present */
} PadAttrs;

/* Elementwise operators: opset < 7 broadcasting, BitShift, Gelu, the
 * activations' parameters, IsInf, Mod, Clip before version 11 */
typedef struct EltwiseAttrs {
    int legacy;         /* opset < 7 broadcast of input 1 at legacy_axis */
    int64_t legacy_axis;
    int shift_left;     /* BitShift */
    int tanh;           /* Gelu's tanh approximation */
    float alpha, beta;  /* with their defaults: LeakyRelu, Elu, Celu, Selu (beta: gamma),
                           HardSigmoid, ThresholdedRelu, Shrink (lambd, bias), Swish */
    int detect_pos, detect_neg; /* IsInf */
    int fmod;           /* Mod */
    int has_min, has_max; /* Clip < 11: its min / max attributes */
    float min, max;
} EltwiseAttrs;

/* QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear */
typedef struct QuantAttrs {
    int axis, qmode;   /* qmode: ops/quant.c's scale layout (per tensor, axis, block) */
    int64_t block_size;
    DType narrow;      /* float type the result is first rounded to, or undefined */
    int int_scale;     /* precision int32: operands truncated to int32 */
    int saturate;
    int wide;          /* compute in float64 */
    int blocked;       /* per-axis (qmode 1) on channel blocks: pass layout's [N, Cb, H, W, B] (param Cb*B) */
} QuantAttrs;

/* QLinearConv, QLinearMatMul, ...: per parameter input, 1 when it is a 1-D vector */
#define QLINEAR_MAX_INPUTS 9
typedef struct QLinearAttrs {
    int per_axis[QLINEAR_MAX_INPUTS];
    ConvAttrs conv; /* QLinearConv, ConvInteger */
} QLinearAttrs;

/* DFT, STFT, the window functions, MelWeightMatrix */
typedef struct SignalAttrs {
    int axis;
    int64_t len;   /* transform / window length */
    int64_t n_red; /* reduction extent */
    int64_t step;  /* STFT frame step */
    int irfft;     /* DFT: inverse of a one-sided transform */
    int inverse;   /* DFT */
    int periodic;  /* the window functions */
} SignalAttrs;

/* TfIdfVectorizer: the pool and weights point into the node's attributes */
typedef struct TfIdfAttrs {
    int mode;
    int64_t rows, cols, out;
    int64_t min_gram, max_gram, max_skip;
    int n_counts, n_indexes, n_pool, n_weights;
    const int64_t *counts, *indexes, *pool;
    const float *weights; /* NULL: all 1 */
} TfIdfAttrs;

/* RoiAlign, MaxRoiPool */
typedef struct RoiAttrs {
    int64_t ph, pw, sampling_ratio;
    int is_max, half_pixel;
    float spatial_scale;
} RoiAttrs;

/* GridSample, AffineGrid (align_corners) */
typedef struct GridSampleAttrs {
    int mode, padding, align_corners;
} GridSampleAttrs;

/* Trilu, EyeLike */
typedef struct TriluAttrs {
    int upper;
    int k_const; /* Trilu: k is a constant (else the input k is read at run time) */
    int64_t k;
} TriluAttrs;

/* OneHot */
typedef struct OneHotAttrs {
    int axis;
    int64_t depth;
    int wrap; /* negative indices wrap (version >= 11) */
} OneHotAttrs;

/* MaxUnpool: the inferred output shape */
typedef struct MaxUnpoolAttrs {
    int64_t shape[CTVM_MAX_RANK];
} MaxUnpoolAttrs;

/* NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss */
typedef struct LossAttrs {
    int reduction;        /* ops/loss.c's code */
    int has_ignore_index;
    int64_t ignore_index;
} LossAttrs;

/* TopK */
typedef struct TopKAttrs {
    int axis;
    int64_t k;
    int largest, k_runtime; /* k_runtime: k is read from input 1 at run time */
} TopKAttrs;

/* Shape, Size, Constant, ConstantOfShape */
struct Attr;
typedef struct ShapeAttrs {
    int64_t start, end; /* Shape */
    int shape_runtime;  /* ConstantOfShape: the shape input is computed at run time */
    const struct Attr *value; /* Constant: its value attribute (any kind); ConstantOfShape:
                                 its one-element tensor, NULL for float32 0 */
} ShapeAttrs;

/* Einsum */
typedef struct EinsumAttrs {
    const char *equation;
} EinsumAttrs;

/* CausalConvWithState */
typedef struct CausalConvAttrs {
    int silu;
} CausalConvAttrs;

/* DepthToSpace, SpaceToDepth */
typedef struct DepthSpaceAttrs {
    int64_t blocksize;
    int crd;
} DepthSpaceAttrs;

/* Cast, CastLike */
typedef struct CastAttrs {
    int saturate;
    int round_mode; /* CTVM_ROUND_* for float8e8m0 */
} CastAttrs;

/* Attention */
typedef struct AttentionAttrs {
    int64_t q_num_heads, kv_num_heads;
    int is_causal, qk_matmul_output_mode;
    DType softmax_dtype;
    int64_t left_window, right_window; /* -1: unbounded */
    float softcap;
    int has_scale;
    float scale;
} AttentionAttrs;

/* LinearAttention */
typedef struct LinAttnAttrs {
    int64_t q_num_heads, kv_num_heads;
    int rule;
    float scale;
} LinAttnAttrs;

/* ctvm.Sdpa (pass match_sdpa) */
typedef struct SdpaAttrs {
    int64_t mask_strides[4];
    int scale_mode;
    float scale;
} SdpaAttrs;

/* Unique, NonMaxSuppression, NonZero, Compress */
typedef struct DynamicAttrs {
    int flat_axis;       /* Unique/Compress: the axis, or -1 for the flattened input */
    int sorted;          /* Unique */
    int max_boxes_input; /* NonMaxSuppression: the box limit is read at run time */
    int64_t max_boxes;
    int center_point_box;
} DynamicAttrs;

/* RotaryEmbedding */
typedef struct RotaryAttrs {
    int64_t num_heads, dim; /* dim: rotary_embedding_dim, resolved */
    int interleaved;
} RotaryAttrs;

/* ScatterElements, ScatterND, Scatter, TensorScatter */
typedef struct ScatterAttrs {
    int axis;
    int reduction; /* ops/scatter.c's RD_* */
    int circular;  /* TensorScatter's mode */
} ScatterAttrs;

/* SwiGLU */
typedef struct SwiGluAttrs {
    float alpha;
} SwiGluAttrs;

/* ctvm.Pack, ctvm.Unpack, ctvm.PadHW (pass layout) */
typedef struct LayoutAttrs {
    int64_t block, channels;
    int64_t pads[4];
} LayoutAttrs;

typedef union OpAttrs {
    ConvAttrs conv;
    PoolAttrs pool;
    GemmAttrs gemm;
    AxisAttrs axis;
    SliceAttrs slice;
    TransposeAttrs transpose;
    ReduceAttrs reduce;
    NormAttrs norm;
    Col2ImAttrs col2im;
    BatchNormAttrs bn;
    CumSumAttrs cumsum;
    SoftmaxAttrs softmax;
    RnnAttrs rnn;
    ResizeAttrs resize;
    PadAttrs pad;
    EltwiseAttrs eltwise;
    QuantAttrs quant;
    QLinearAttrs qlinear;
    SignalAttrs signal;
    TfIdfAttrs tfidf;
    RoiAttrs roi;
    GridSampleAttrs gridsample;
    TriluAttrs trilu;
    OneHotAttrs onehot;
    MaxUnpoolAttrs maxunpool;
    LossAttrs loss;
    TopKAttrs topk;
    ShapeAttrs shape;
    CausalConvAttrs causalconv;
    DepthSpaceAttrs depthspace;
    CastAttrs cast;
    AttentionAttrs attention;
    LinAttnAttrs linattn;
    SdpaAttrs sdpa;
    DynamicAttrs dynamic;
    RotaryAttrs rotary;
    ScatterAttrs scatter;
    SwiGluAttrs swiglu;
    EinsumAttrs einsum;
    LayoutAttrs layout;
} OpAttrs;

/* A kernel's scratch buffer (RNN states, Unique's and NonMaxSuppression's
 * work, Sdpa's tiles): its size from infer, its value from pass hidden. */
typedef struct NodeScratch {
    int64_t bytes; /* 0: none */
    DType dtype;
    int value;     /* the scratch value made by pass hidden, or -1 */
    int per_thread; /* bytes is one thread's share: pass hidden places one per thread */
    int64_t bytes_u8; /* a second, uint8 scratch (the int8 LSTM's quantized states), 0: none */
    int value_u8;     /* its value made by pass hidden, or -1 */
} NodeScratch;

/* A node whose output has data-dependent dims (ops/dynprop.c): how the
 * kernel computes them. */
typedef struct NodeDyn {
    int kind;            /* DYN_* of ops/dynprop.h, or -1 */
    int n_prog;          /* DYN_PROG: one program per output dim */
    int *prog_len;       /* instructions of program k (7 ints each) */
    const int64_t **prog;
} NodeDyn;

struct Graph;
struct Node;
/* Prints the ctvm-invented typed fields of node n of g as ", name=value"
 * items (none for most nodes). */
void op_attrs_print(FILE *f, const struct Graph *g, const struct Node *n);

#endif
