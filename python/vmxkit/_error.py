# SPDX-License-Identifier: Apache-2.0
"""vmxkit.Error: the one exception vmxkit raises for a problem with its inputs or a refused write."""

from typing import Optional

__all__ = ["Error"]


class Error(Exception):
    """A condition that stops the work: a file that cannot be read, input that cannot be read as
    its format, a request that cannot work, a refused write. ``str(error)`` is the whole message,
    starting with ``file:line:col: `` when those are known (as the command line prints it);
    ``path``, ``line`` and ``column`` are None when not known (``line``/``column`` are 1-based)."""

    def __init__(self, message: str, path: Optional[str] = None, line: Optional[int] = None,
                 column: Optional[int] = None) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (str(self), self.path, self.line, self.column))
