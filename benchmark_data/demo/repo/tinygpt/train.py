"""Training entry point."""

import argparse

import torch
import yaml

from tinygpt.model import SIZES, ModelConfig, TinyGPT


def build_optimizer(model, cfg):
    opt = cfg["optimizer"]
    return torch.optim.AdamW(model.parameters(), lr=opt["lr"], weight_decay=opt["weight_decay"],
                             betas=tuple(opt["betas"]))


def evaluate(model, eval_batch_size=256):
    """Validation perplexity on OpenWebText."""
    raise NotImplementedError


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/train.yaml")
    parser.add_argument("--size", default="small", choices=sorted(SIZES))
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--grad-clip", type=float, default=1.0)
    args = parser.parse_args()
    with open(args.config) as handle:
        cfg = yaml.safe_load(handle)
    size = SIZES[args.size]
    config = ModelConfig(n_layers=size["n_layers"], d_model=size["d_model"], n_heads=size["n_heads"])
    model = TinyGPT(config)
    optimizer = build_optimizer(model, cfg)
    # TODO: cosine decay after the warmup
    total = cfg["schedule"]["max_steps"]
    warmup = cfg["schedule"]["warmup_steps"]
    print(optimizer, total, warmup, args.batch_size, args.grad_clip)


if __name__ == "__main__":
    main()
