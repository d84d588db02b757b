"""``GraphedStep``'s plumbing on the CPU, where no CUDA graph can run: a stand-in graph, which
runs nothing when captured and re-runs the captured function when replayed, checks the warm-up,
when the capture comes, that replays compute, the eager fallback after a failed capture (and its
reason), and that the blocks the warm-up left cached are released after a capture. Real graphs:
tests/test_gpu.py (needs CUDA)."""

from __future__ import annotations

import pytest
import torch

from engine.runtime import frame_step
from engine.runtime.frame_step import GraphedStep

WARMUP = 2


class StandInGraph:
    """What a CUDA graph does with ``compute``: nothing at capture, all of it at each replay."""

    def __init__(self, compute) -> None:
        self.compute, self.replays = compute, 0

    def replay(self) -> None:
        self.replays += 1
        self.compute()


@pytest.fixture
def graphs(monkeypatch):
    """Captures become stand-in graphs; returns (the graphs captured, the devices released)."""
    captured, released = [], []

    def capture(compute, device):
        captured.append(StandInGraph(compute))
        return captured[-1], None

    monkeypatch.setattr(frame_step, "graph_unavailable_reason", lambda device, use: None if use else "off")
    monkeypatch.setattr(frame_step, "capture", capture)
    monkeypatch.setattr(frame_step, "release_cached_blocks", released.append)
    return captured, released


def counting_step(use_graph: bool = True) -> tuple[GraphedStep, torch.Tensor, list]:
    counter, marks = torch.zeros(1), []

    def run(mark=None):
        counter.add_(1)
        marks.append(mark)

    return GraphedStep(run, torch.device("cpu"), use_graph, WARMUP, "a test step"), counter, marks


def test_warm_up_then_one_capture_then_replays(graphs):
    captured, released = graphs
    step, counter, marks = counting_step()
    for i in range(WARMUP):
        step(f"eager {i}")
        assert step.pending and step.warm_runs == i + 1
    assert captured == [] and released == []
    step("captured")  # the capture runs nothing: its replay computes this call
    assert len(captured) == 1 and not step.pending and step.graph is captured[0]
    assert released == [torch.device("cpu")]  # what the warm-up left cached goes once the graph holds its own
    for _ in range(3):
        step("ignored")  # replays take no arguments: a graph re-runs what it recorded
    assert int(counter) == WARMUP + 4 and captured[0].replays == 4
    assert marks == ["eager 0", "eager 1", None, None, None, None]


def test_a_failed_capture_computes_eagerly_from_then_on_and_says_why(monkeypatch):
    monkeypatch.setattr(frame_step, "graph_unavailable_reason", lambda device, use: None)
    monkeypatch.setattr(frame_step, "capture", lambda compute, device: (None, "capture failed: a test"))
    released = []
    monkeypatch.setattr(frame_step, "release_cached_blocks", released.append)
    step, counter, _ = counting_step()
    for _ in range(WARMUP + 3):
        step()
    assert int(counter) == WARMUP + 3 and step.graph is None and not step.pending
    assert step.fallback_reason == "capture failed: a test" and released == []


def test_without_graphs_every_call_is_eager_with_no_warm_up(graphs):
    captured, _ = graphs
    step, counter, _ = counting_step(use_graph=False)
    for _ in range(4):
        step()
    assert int(counter) == 4 and step.warm_runs == 0 and captured == [] and step.fallback_reason == "off"


def test_on_the_cpu_a_step_is_eager_and_says_why():
    step, counter, _ = counting_step()
    step()
    assert int(counter) == 1 and not step.pending and step.warm_runs == 0 and "CUDA" in step.fallback_reason
