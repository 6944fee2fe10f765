"""bn_random.py - the BatchNorm randomisation shared by export_models.py and
make_small_cnn.py, so the seed models and the small CNN get the same kind of
random but well-scaled statistics."""
import torch


def randomize_batchnorm(model, g, calib_shape):
    """Give every BatchNorm of `model` random affine parameters and random but
    well-scaled running statistics, drawing from generator `g`.

    1. gamma ~ U(0.5, 1.5), beta ~ N(0, 0.1).
    2. Calibrate: with momentum=None (cumulative average) run one forward pass in
       train mode on a seeded N(0,1) batch of `calib_shape`, so running_mean /
       running_var become the real per-channel statistics of each BN's input.
    3. Perturb: running_mean += 0.1 * std * N(0,1), running_var *= U(0.75, 1.25).
    Step 2 keeps activations near unit scale through deep nets (a purely random
    running_var makes resnet50 explode or vanish); step 3 keeps the folded
    scale/shift from being a trivial identity normalisation.
    Returns the number of BatchNorm modules."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return 0
    with torch.no_grad():
        for bn in bns:
            c = bn.num_features
            bn.weight.copy_(torch.rand(c, generator=g) + 0.5)
            bn.bias.copy_(torch.randn(c, generator=g) * 0.1)
            bn.reset_running_stats()
            bn.momentum = None
        calib = torch.randn(calib_shape, generator=g)
        model.train()
        model(calib)
        model.eval()
        for bn in bns:
            c = bn.num_features
            std = bn.running_var.sqrt()
            bn.running_mean.add_(0.1 * std * torch.randn(c, generator=g))
            bn.running_var.mul_(torch.rand(c, generator=g) * 0.5 + 0.75)
            bn.momentum = 0.1
            bn.num_batches_tracked.zero_()
    return len(bns)
