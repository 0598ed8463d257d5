"""The full-screen terminal client (prompt_toolkit).

Layers, in the style of cli-chess:

* :mod:`.session` - the :class:`TableSession` protocol a driver implements, and
  :class:`LocalSession` (in-memory table with bots, machine work in a worker thread);
* :mod:`.model` - :class:`TableSnapshot`, an immutable picture of one seat's view of the table,
  built from a :class:`~dealerless.protocol.table.TableMachine` by :func:`build_snapshot`;
* :mod:`.presenter` - pure functions from a snapshot to lines of styled text and key maps;
* :mod:`.views` / :mod:`.app` - the prompt_toolkit layout, key bindings and screens.

Entry point for drivers: :func:`dealerless.client.tui.app.run_table_app`.
"""
