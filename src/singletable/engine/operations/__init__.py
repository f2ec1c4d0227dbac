"""One module per API operation, and nothing else: ``run(engine, params) -> response``.

Each reads top to bottom like the operation's API reference. The registry (:mod:`singletable.engine.registry`)
lists them; the Engine validates a request's shape before calling ``run``, so no module checks it again. What
two operations share lives in the engine module named for it (``item_writes``, ``item_reads``, ``write_path``,
``paging``, ``transactions``, ``table_descriptions``, ``table_definitions``, ``tags``...), never in another
operation.
"""
