# Swaps <dir>/a (a folder) and <dir>/a_link (a link to somewhere else) atomically, for ever
# (renameat2 RENAME_EXCHANGE): the fastest, nastiest way another process can change a tree
# under a walker. Prints "ready" once it swaps. `python3 exchange-swapper.py <dir>`.
import ctypes
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
exchange = libc.renameat2
folder = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
exchange(folder, b"a", folder, b"a_link", 2)
print("ready", flush=True)
while True:
    exchange(folder, b"a", folder, b"a_link", 2)
