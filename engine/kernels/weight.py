"""What every quantised weight kind (``Int8Weight``, ``Int4Weight``) shares: a tensor-like object
standing in for the float 2-D parameter it replaced, whose tensors all hold one entry per output
row, so that it supports what the model does with its weights (row slicing ``w[a:b]``, as the
stacked per-step weights are used, and ``F.linear`` through the ``__torch_function__`` protocol)
and, for loading, ``copy_`` of float rows, quantised on the way in. Any other torch function raises
a TypeError naming it."""

from __future__ import annotations

import torch
import torch.nn.functional as F


class QuantizedWeight:
    """Subclasses name their tensors first in ``__slots__`` (constructor order; the scales second, in
    the compute dtype; anything after them is not a tensor of the weight) and their buffers'
    suffixes in ``PARTS``, and define ``quantize``, ``shape`` and ``linear``."""

    PARTS: tuple[str, ...] = ()
    __slots__ = ()

    @classmethod
    def quantize(cls, weight: torch.Tensor) -> QuantizedWeight:
        raise NotImplementedError

    def linear(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    @classmethod
    def of_module(cls, module: torch.nn.Module, name: str) -> QuantizedWeight:
        """The weight ``module.<name>`` whose tensors are the module's ``<name>_<part>`` buffers."""
        return cls(*(module._buffers[f"{name}_{part}"] for part in cls.PARTS))

    def tensors(self) -> tuple[torch.Tensor, ...]:
        return tuple(getattr(self, name) for name in self.__slots__[:len(self.PARTS)])

    @property
    def dtype(self) -> torch.dtype:
        """The compute dtype (what the float weight had)."""
        return self.tensors()[1].dtype

    @property
    def device(self) -> torch.device:
        return self.tensors()[0].device

    def __getitem__(self, rows: slice) -> QuantizedWeight:
        if not isinstance(rows, slice):
            raise TypeError(f"a quantised weight supports row slices only, got {rows!r}")
        return type(self)(*(t[rows] for t in self.tensors()))

    def copy_(self, weight: torch.Tensor) -> QuantizedWeight:
        """Quantise ``weight`` (cast to the compute dtype first, as a float model would hold it)
        into these rows, on their device: a checkpoint streaming to a GPU is quantised there, one
        tensor at a time, instead of by the host's cores."""
        for mine, new in zip(self.tensors(), self.quantize(weight.to(self.device, self.dtype)).tensors()):
            mine.copy_(new)
        return self

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is F.linear:
            x, weight = args[0], args[1]
            bias = args[2] if len(args) > 2 else kwargs.get("bias")
            y = weight.linear(x)
            return y if bias is None else y + bias
        raise TypeError(f"{getattr(func, '__name__', func)} is not supported on a quantised weight ({cls.__name__})")
