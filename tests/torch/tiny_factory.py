# SPDX-License-Identifier: Apache-2.0
"""A small synthetic module for torch_zoo_check.py's FILE.py:FUNCTION case (not a real model).

Its forward uses functional ops (F.relu, the residual `+`, torch.flatten) as well as modules,
so an exporter that saw only modules would miss rows."""

import torch
import torch.nn.functional as F
from torch import nn


class TinyCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        y = F.relu(self.bn2(self.conv2(x)))
        x = F.relu(x + y)
        x = F.adaptive_avg_pool2d(x, 1)
        return self.head(torch.flatten(x, 1))


def tiny_cnn():
    return TinyCnn()
