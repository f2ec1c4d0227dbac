"""One module per API operation, and nothing else: ``run(engine, params) -> response``.

Each reads top to bottom like the operation's API reference. The registry
(:mod:`singletable.engine._registry`) lists them; the Engine validates a request's shape before calling
``run``, so no module checks it again. What two operations share lives in the engine module named for it
(``_item_writes``, ``_item_reads``, ``_write_path``, ``_paging``, ``_transactions``, ``_table_descriptions``,
``_table_definitions``, ``_tags``...), never in another operation.
"""
