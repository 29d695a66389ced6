"""For each implicit sync of document 003 and a few memory calls: what
torch.cuda.set_sync_debug_mode("error") reports and what perfgate's no_sync_in finds.

  PERFGATE_LIB=build/libperfgate.so PYTHONPATH=python python3 bench/sync_debug_table.py

Prints a Markdown table (one row per case)."""
import torch

import perfgate

N = 1 << 20
x = torch.randn(N, device="cuda")
pinned = torch.empty(N, pin_memory=True)
host_idx = torch.arange(0, N, 4)
dev_idx = torch.arange(0, N, 4, device="cuda")


def c_item():
    (x * 2).sum().item()


def c_print():
    print(x[:2] * 2, end="\r")


def c_cpu():
    (x * 2).cpu()


def c_numpy():
    (x[:1024] * 2).cpu().numpy()


def c_if_any():
    if (x > 100).any():
        pass


def c_host_index():
    x[host_idx]


def c_nonzero():
    torch.nonzero(x > 0)


def c_empty_cache():
    y = torch.empty(64 << 20, device="cuda")
    del y
    torch.cuda.empty_cache()


def c_new_alloc():
    torch.cuda.empty_cache()
    torch.empty(256 << 20, device="cuda")


def c_synchronize():
    torch.cuda.synchronize()


def c_pinned_copy():
    pinned.copy_(x, non_blocking=True)


def c_device_index():
    x[dev_idx]


CASES = [("`.item()`", c_item), ("`print(tensor)`", c_print), ("`.cpu()`", c_cpu),
         ("`.cpu().numpy()`", c_numpy), ("`if (x > 0).any():`", c_if_any),
         ("`x[host_index]`", c_host_index), ("`torch.nonzero`", c_nonzero),
         ("`torch.cuda.empty_cache()` (cudaFree)", c_empty_cache),
         ("a new 256 MiB allocation (cudaMalloc)", c_new_alloc),
         ("`torch.cuda.synchronize()`", c_synchronize),
         ("`copy_(…, non_blocking=True)` to pinned", c_pinned_copy),
         ("`x[device_index]`", c_device_index)]


def debug_mode(fn):
    fn()
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        fn()
        return "nothing"
    except RuntimeError as e:
        return "error: " + str(e).split("\n")[0][:60]
    finally:
        torch.cuda.set_sync_debug_mode(0)
        torch.cuda.synchronize()


def perfgate_finds(fn):
    p = perfgate.Perf("table")
    p.no_sync_in(fn)
    found = [t.strip() for k, t in p.lines if t.startswith("  ") and " x" in t]
    p.close()
    if not found:
        return "no sync"
    return "; ".join(f.split(" at ")[0] + " at " + f.split(" at ")[-1].split(" (")[0] for f in found[:2])


print("| call | `set_sync_debug_mode(\"error\")` | perfgate `no_sync_in` |")
print("|---|---|---|")
for name, fn in CASES:
    print(f"| {name} | {debug_mode(fn)} | {perfgate_finds(fn)} |")
