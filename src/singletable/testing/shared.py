"""What :mod:`singletable.testing` shares with the pytest plugin (``singletable_pytest``) -- not for users,
and not a promise to them.

The plugin builds each session's tables and seed from the same sources ``mock_aws(tables=..., seed=...)``
reads, and serves them on a loopback port with the same server. It imports those pieces from here, by these
names, and never from this package's private modules (``tests/test_private_names.py`` holds that), so the
package can rearrange its modules without breaking the plugin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from singletable.testing._sources import SourceError, create_tables, seed, table_definitions

if TYPE_CHECKING:
    from singletable.testing._server import Server

__all__ = ["Server", "SourceError", "create_tables", "seed", "table_definitions"]


def __getattr__(name: str) -> Any:
    """``Server`` loads the HTTP server (uvicorn) on first use, as the plugin's server fixture did itself:
    a session that never serves needs neither."""
    if name == "Server":
        from singletable.testing._server import Server

        return Server
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
