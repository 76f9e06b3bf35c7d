"""stdin_digest.py: read all of stdin and print its length and sha256."""

import hashlib
import sys

data = sys.stdin.buffer.read()
print(len(data), hashlib.sha256(data).hexdigest())
