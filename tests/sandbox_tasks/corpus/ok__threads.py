# expect:
import threading

import torch

seen = []
worker = threading.Thread(target=lambda: seen.append("thread ran"))
worker.start()
worker.join()
torch.set_num_threads(2)  # a fresh OpenMP pool in the child is fine; an inherited one is not
a = torch.randn(256, 256)
result = {"seen": seen, "threads": torch.get_num_threads(), "finite": bool(torch.isfinite(a @ a).all())}
