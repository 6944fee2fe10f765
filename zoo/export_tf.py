"""export_tf.py - the zoo's Keras applications converted by tf2onnx (opset 15),
with seeded random weights (weights=None, then every BatchNormalization's
gamma/beta/moving statistics and every conv/dense bias drawn at random), input
[1,224,224,3] NHWC (tf2onnx adds the Transposes to NCHW), into
$CTVM_CACHE/zoo/<name>/ (format: /work/ZOO_FORMAT.md).

    ~/.cache/ctvm/zoo-tf/bin/python zoo/export_tf.py [--list] [--ci] [--force] [name ...]

(zoo/setup_venvs.sh makes that venv.) framework.npz holds the Keras model's own
outputs; ONNX Runtime on the converted file must match them before it is saved.
The Keras 3 model is converted through a tf.function of it (tf2onnx's
from_keras expects the Keras 2 API). Classifier heads output logits
(classifier_activation=None) so the comparison is not squashed by a softmax."""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnx.numpy_helper  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
import tf2onnx  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_common  # noqa: E402

PROG = "export_tf"
OPSET = 15  # tf2onnx's default in 1.17 too; 15 keeps the ops ctvm's other opset-13/14 models use
SHAPE = (1, 224, 224, 3)
APPS = keras.applications

# name -> constructor, seed, ci
MODELS = {
    "keras_mobilenet_v3_small": dict(make=lambda: APPS.MobileNetV3Small(
        weights=None, input_shape=SHAPE[1:], classifier_activation=None), seed=3101, ci=True),
    "keras_efficientnet_b0": dict(make=lambda: APPS.EfficientNetB0(
        weights=None, input_shape=SHAPE[1:], classifier_activation=None), seed=3102, ci=False),
    "keras_resnet50": dict(make=lambda: APPS.ResNet50(
        weights=None, input_shape=SHAPE[1:], classifier_activation=None), seed=3103, ci=False),
}


def images(rng, n):
    """Pixel-range images: MobileNetV3 and EfficientNet rescale 0..255 inside."""
    return rng.uniform(0.0, 255.0, size=(n,) + SHAPE[1:]).astype(np.float32)


def randomize_biases(model, rng):
    n = 0
    for layer in model.layers:
        b = getattr(layer, "bias", None)
        if b is not None and not isinstance(layer, keras.layers.BatchNormalization):
            b.assign(rng.normal(0.0, 0.05, size=b.shape).astype(np.float32))
            n += 1
    return n


def randomize_batchnorm(model, rng, calib):
    """Keras counterpart of golden/bn_random.py: gamma ~ U(0.5,1.5), beta ~ N(0,0.1);
    then, BN by BN in graph order, moving_mean/variance = the real per-channel
    statistics of that BN's input on a seeded batch (given the BNs before it),
    perturbed: mean += 0.1*std*N(0,1), var *= U(0.75,1.25)."""
    bns = [l for l in model.layers if isinstance(l, keras.layers.BatchNormalization)]
    for bn in bns:
        c = bn.gamma.shape[0]
        bn.gamma.assign(rng.uniform(0.5, 1.5, c).astype(np.float32))
        bn.beta.assign(rng.normal(0.0, 0.1, c).astype(np.float32))
    for bn in bns:
        probe = keras.Model(model.input, bn.input)
        a = probe(calib, training=False).numpy()
        axes = tuple(range(a.ndim - 1))
        mean, var = a.mean(axis=axes), a.var(axis=axes)
        c = mean.shape[0]
        bn.moving_mean.assign((mean + 0.1 * np.sqrt(var) * rng.normal(size=c)).astype(np.float32))
        bn.moving_variance.assign((var * rng.uniform(0.75, 1.25, c)).astype(np.float32))
    return len(bns)


def convert(model, path):
    spec = (tf.TensorSpec(SHAPE, tf.float32, name="input"),)

    @tf.function(input_signature=spec)
    def fn(x):
        return model(x, training=False)

    proto, _ = tf2onnx.convert.from_function(fn, input_signature=spec, opset=OPSET)
    fold_captured_tensors(proto, fn.get_concrete_function())
    onnx.save(proto, path)
    return proto


def fold_captured_tensors(proto, concrete):
    """Keras 3's Normalization (EfficientNet's preprocessing) keeps mean/variance
    as plain tensors, which the traced function captures as placeholders and
    tf2onnx turns into extra graph inputs: make them initializers."""
    values = {inner.name: outer.numpy() for outer, inner in concrete.graph.captures
              if outer.dtype != tf.resource}
    for vi in list(proto.graph.input):
        if vi.name in values:
            proto.graph.initializer.append(onnx.numpy_helper.from_array(values[vi.name], vi.name))
            proto.graph.input.remove(vi)


def export_one(name):
    spec = MODELS[name]
    keras.utils.set_random_seed(spec["seed"])
    model = spec["make"]()
    rng = np.random.default_rng(spec["seed"] + 3)
    randomize_biases(model, rng)
    nbn = randomize_batchnorm(model, rng, images(rng, 2))
    x = images(np.random.default_rng(spec["seed"] + 7), 1)
    y = model(x, training=False).numpy()
    tmp = zoo_common.tmp_dir(name)
    path = os.path.join(tmp, "model.onnx")
    m = convert(model, path)
    zoo_common.check_fixed_shapes(name, m)
    if len(m.graph.input) != 1 or len(m.graph.output) != 1:
        raise RuntimeError("%s: graph I/O %d -> %d, expected 1 -> 1" % (name, len(m.graph.input), len(m.graph.output)))
    ins = {m.graph.input[0].name: x}
    ref = {m.graph.output[0].name: y}
    zoo_common.check_output(name, ref)
    zoo_common.input_dtypes_match(name, m, ins)
    err = zoo_common.ort_max_err(name, path, ins, ref)
    meta = {"name": name, "family": "classification",
            "exporter": "tf2onnx %s (tf %s)" % (tf2onnx.__version__, tf.__version__),
            "opset": zoo_common.opset_of(m), "input_shapes": "", "ci": spec["ci"], "seed": spec["seed"],
            "note": "keras %s application, weights=None, %d BatchNorms randomized, logits; NHWC input; "
                    "ORT vs Keras max err %.3g" % (keras.__version__, nbn, err)}
    d = zoo_common.write_model_dir(name, tmp, ins, ref, meta)
    return "opset %d, %d nodes, ORT max err %.3g -> %s" % (zoo_common.opset_of(m), len(m.graph.node), err, d)


if __name__ == "__main__":
    tf.config.threading.set_intra_op_parallelism_threads(2)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    zoo_common.run_all(PROG, MODELS, export_one)
