"""The signed table protocol: the state machine every peer runs (spec/protocol.md)."""

from dealerless.protocol.table.config import SeatInfo, TableConfig
from dealerless.protocol.table.events import LocalProtocolError, RemoteProtocolError
from dealerless.protocol.table.machine import TableMachine

__all__ = [
    "LocalProtocolError",
    "RemoteProtocolError",
    "SeatInfo",
    "TableConfig",
    "TableMachine",
]
