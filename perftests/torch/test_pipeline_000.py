"""Document 000 (host synchronization in GPU pipelines): torch.compile(mode="reduce-overhead")
beats eager on an element-wise chain ("2.78x for element-wise operations"), and CUDA graph
replay beats eager launches, the more so when eager syncs after every op."""
import pytest
import torch

N = 1 << 16  # small: launch-bound, where the document's claims live
OPS = 16


def chain(x):
    for k in range(OPS):
        x = x * 1.0001 + 0.5 if k % 2 == 0 else torch.sin(x)
    return x


@pytest.fixture
def x():
    return torch.randn(N, device="cuda")


def test_compiled_reduce_overhead_beats_eager(perf, x):
    compiled = torch.compile(chain, mode="reduce-overhead")
    for _ in range(3):
        compiled(x)  # compile and record its graph before timing
    torch.cuda.synchronize()
    perf.expect_faster(perf.workload(lambda: compiled(x), name="compiled"),
                       perf.workload(lambda: chain(x), name="eager"), 2.0)


def test_graph_replay_beats_eager(perf, x):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        chain(x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = chain(x)
    perf.expect_faster(perf.workload(g.replay, name="graph"),
                       perf.workload(lambda: chain(x), name="eager"), 1.5)


def test_graph_replay_beats_eager_with_a_sync_per_op_by_more(perf, x):
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        chain(x)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        chain(x)

    def synced_eager():
        y = x
        for k in range(OPS):
            y = y * 1.0001 + 0.5 if k % 2 == 0 else torch.sin(y)
            torch.cuda.synchronize()
    perf.expect_faster(perf.workload(g.replay, name="graph"), synced_eager, 3.0)
