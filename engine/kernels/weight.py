"""What every quantised weight kind shares: a tensor-like object standing in for a 2-D float parameter
that supports row slicing, ``F.linear`` and ``copy_`` of float rows (quantised on the way in); any
other torch function raises a TypeError."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .kernel_choice import KernelChoice


class QuantizedWeight:
    """Subclasses name their tensors first in ``__slots__`` (scales second), their buffers' suffixes in
    ``PARTS``, and define ``quantize``, ``shape`` and ``linear``."""

    PARTS: tuple[str, ...] = ()
    __slots__ = ()

    @classmethod
    def quantize(cls, weight: torch.Tensor) -> QuantizedWeight:
        raise NotImplementedError

    @classmethod
    def laid_out(cls, weight: torch.Tensor) -> QuantizedWeight:
        """What ``quantize(weight)`` gives for a weight on the meta device: its tensors' shapes and dtypes
        with none of the arithmetic, which the meta device runs step by step in Python (~35 ms a
        weight: a 7B model's layout took most of a minute)."""
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
        """Quantise ``weight`` (cast to the compute dtype first) into these rows, on their device."""
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


class RowScaledWeight(QuantizedWeight):
    """A weight of one byte a value with one scale per output row, ``w ~ q * scale[:, None]`` (int8,
    float8): a kind names its buffers in ``PARTS`` and its rounding and kernels in ``CHOICE``."""

    CHOICE: KernelChoice
    STORED: torch.dtype  # of ``q``
    __slots__ = ("q", "scale")

    def __init__(self, q: torch.Tensor, scale: torch.Tensor):
        self.q, self.scale = q, scale

    @classmethod
    def quantize(cls, weight: torch.Tensor) -> RowScaledWeight:
        return cls(*cls.CHOICE.quantize_rows(weight))

    @classmethod
    def laid_out(cls, weight: torch.Tensor) -> RowScaledWeight:
        if weight.dim() != 2 or not weight.is_floating_point():
            raise ValueError(f"expected a 2-D float weight, got {tuple(weight.shape)} {weight.dtype}")
        return cls(torch.empty(weight.shape, dtype=cls.STORED, device="meta"),
                   torch.empty(weight.shape[0], dtype=weight.dtype, device="meta"))

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor]:
        return self.q, self.scale

    @property
    def shape(self) -> torch.Size:
        return self.q.shape

    def linear(self, x: torch.Tensor) -> torch.Tensor:
        return self.CHOICE.linear(x, self.q, self.scale)
