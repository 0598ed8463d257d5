"""Issue 11/15: a hand's key share should be deleted once that hand's result is certified
(``HandSigned``), since with a shared transcript it opens every hidden card of that hand.

The node can only do so once ``TableMachine.resume`` replays a certified hand without this
seat's share (today it decrypts its own cards again and fails with NotACard), which is a change
inside protocol/table (the coordinator's). Until then the node deletes a table's shares when the
game is over (tests/node/test_store_db.py). When this test passes, remove the xfail and make
SeatNode._after call ``store.delete_secrets(event.hand)`` on HandSigned.
"""

from __future__ import annotations

import random

import pytest

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import start_game
from dealerless.protocol.crypto.errors import NotACard
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import HandSigned

GAME = make_config("limit-tuppen", 3, {"hands": 3})


@pytest.mark.xfail(
    strict=True,
    raises=NotACard,
    reason="protocol/table: resume needs the shares of certified hands",
)
def test_resume_without_the_share_of_a_certified_hand() -> None:
    rng = random.Random(4)
    sim = start_game(GAME, rng)
    bot = bot_for(GAME.game)
    while not any(isinstance(e, HandSigned) and e.hand == 1 for e in sim.events[0]):
        sim.deliver_all()
        mover = next(s for s, m in enumerate(sim.machines) if m.my_turn_to_act())
        machine = sim.machines[mover]
        sim.events[mover].extend(machine.act(bot(machine.engine, mover, rng, True), sim.clock))
        sim.flush(mover)
    sim.deliver_all()
    kept = {hand: share for hand, share in sim.secrets[0].items() if hand > 1}
    resumed = TableMachine.resume(
        sim.table, sim.keys[0], list(sim.machines[0].records), secrets=kept, now=sim.clock
    )
    assert resumed.state_hash() == sim.machines[0].state_hash()
