"""Document 003 (CPU<->GPU synchronization points): `.item()`, `print(tensor)`, `.cpu()`,
`.numpy()`, `if (x > 0).any():` and indexing with a host tensor each force a host sync;
their asynchronous rewrites do not. Each sync is found by CUPTI and named by its Python line."""
import pytest
import torch

from conftest import found_at

pytestmark = pytest.mark.perf_sync
N = 1 << 20


@pytest.fixture
def x():
    return torch.randn(N, device="cuda")


def test_item_syncs(perf, x):
    def step():
        y = x * 2
        return y.sum().item()  # sync
    assert perf.expect_syncs(step, 1, at_least=True)
    assert found_at(perf, step, "# sync")


def test_print_syncs(perf, x, capsys):
    def step():
        y = x[:4] * 2
        print(y)  # sync
    assert perf.expect_syncs(step, 1, at_least=True)
    assert found_at(perf, step, "# sync")


def test_cpu_syncs(perf, x):
    def step():
        return (x * 2).cpu()  # sync
    assert perf.expect_syncs(step, 1, at_least=True)
    assert found_at(perf, step, "# sync")


def test_numpy_syncs(perf, x):
    def step():
        return (x[:1024] * 2).cpu().numpy()  # sync
    assert perf.expect_syncs(step, 1, at_least=True)
    assert found_at(perf, step, "# sync")


def test_any_in_an_if_syncs(perf, x):
    def step():
        y = x * 2
        if (y > 100).any():  # sync
            y.zero_()
    assert perf.expect_syncs(step, 1, at_least=True)
    assert found_at(perf, step, "# sync")


def test_indexing_with_a_host_tensor_syncs(perf, x):
    idx = torch.arange(0, N, 4)  # on the host

    def step():
        return x[idx]  # sync
    assert perf.expect_syncs(step, 1, at_least=True)
    assert found_at(perf, step, "# sync")


# ---- the asynchronous rewrites --------------------------------------------

def test_accumulating_on_the_gpu_is_clean(perf, x):
    total = torch.zeros((), device="cuda")

    def step():
        total.add_((x * 2).sum())
    assert perf.no_sync_in(step)


def test_torch_where_instead_of_if_is_clean(perf, x):
    def step():
        y = x * 2
        return torch.where(y > 100, torch.zeros_like(y), y)
    assert perf.no_sync_in(step)


def test_non_blocking_copy_to_pinned_memory_is_clean(perf, x):
    out = torch.empty(N, pin_memory=True)

    def step():
        out.copy_(x * 2, non_blocking=True)
    assert perf.no_sync_in(step)


def test_indexing_with_a_device_tensor_is_clean(perf, x):
    idx = torch.arange(0, N, 4, device="cuda")

    def step():
        return x[idx]
    assert perf.no_sync_in(step)


def test_a_training_step_region_is_clean(perf, x):
    w = torch.randn(1024, 1024, device="cuda")
    a = torch.randn(256, 1024, device="cuda")
    loss_sum = torch.zeros((), device="cuda")
    with perf.no_sync_in("step"):
        for _ in range(3):
            loss_sum += (a @ w).square().mean()
