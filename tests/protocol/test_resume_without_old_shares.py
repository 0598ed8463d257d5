"""A hand's key share is deleted once that hand's result is certified (``HandSigned``): with a
shared transcript it would open every hidden card of that hand. Resume must not need it: the
machine replays a certified hand without this seat's share."""

from __future__ import annotations

import random

from dealerless.client.bots import bot_for
from dealerless.client.protocol_sim import start_game
from dealerless.protocol.rules.registry import make_config
from dealerless.protocol.table import TableMachine
from dealerless.protocol.table.events import HandSigned

GAME = make_config("limit-tuppen", 3, {"hands": 3})


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
