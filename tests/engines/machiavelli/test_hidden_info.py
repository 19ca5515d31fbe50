"""Hidden information: changing what a seat cannot see never changes what it is sent (its
observation, and the events of every step, also when the hidden card leaves a hand face down
into the deck); nothing hidden leaks into an observation."""

from __future__ import annotations

import json
import random

import pytest

from arena.core.game import Event, Json
from arena.core.rng import derive_seed
from arena.games.machiavelli import GAME, Action
from arena.games.machiavelli.actions import ActionType, make
from arena.games.machiavelli.cards import NECROPOLIS, THIEVES_DEN, Character
from arena.games.machiavelli.state import Phase, State


def reshuffle_hidden(state: State, seat: int, rng: random.Random) -> State:
    """Return a copy with everything `seat` cannot see shuffled: the other hands and the
    cards under the Museum (face down: hidden from every seat) among themselves, the deck,
    and the characters it does not hold (a Theater swap moves them between seats)."""
    other = GAME.clone(state)
    others = [s for s in range(state.players) if s != seat]
    cards = [c for s in others for c in other.hands[s]] + other.museum
    rng.shuffle(cards)
    for s in others:
        n = len(other.hands[s])
        other.hands[s], cards = cards[:n], cards[n:]
    other.museum = cards
    rng.shuffle(other.deck)
    revealed = {c for _, c in state.revealed}
    visible_pool = state.phase == Phase.DRAFT and GAME.to_act(state).seat == seat  # type: ignore[union-attr]
    hidden: list[Character] = list(other.facedown)
    if not visible_pool:
        hidden += other.pool
    for s in others:
        hidden += [c for c in other.chars[s] if c not in revealed]
    rng.shuffle(hidden)
    other.facedown, hidden = hidden[:len(other.facedown)], hidden[len(other.facedown):]
    if not visible_pool:
        other.pool, hidden = hidden[:len(other.pool)], hidden[len(other.pool):]
    for s in others:
        keep = [c for c in other.chars[s] if c in revealed]
        n = len(other.chars[s]) - len(keep)
        other.chars[s], hidden = keep + hidden[:n], hidden[n:]
    shuffle_markers(other, seat, rng)
    other.rng.seed(rng.random())
    other.cache = None
    return other


def shuffle_markers(state: State, seat: int, rng: random.Random) -> None:
    """Move each real marker (the signed warrant, the flowered threat) among the markers in
    force, when `seat` did not lay them; once one was settled, the real one may be gone
    (None) too."""
    if state.warrants and state.magistrate != seat:
        spent = [None] if len(state.warrants) < 3 else []
        state.signed = rng.choice([*state.warrants, *spent])
    if state.threats and state.blackmailer != seat:
        spent = [None] if len(state.threats) < 2 else []
        state.flower = rng.choice([*state.threats, *spent])


@pytest.mark.parametrize("preset", ("first-game", "cunning-agents"))
@pytest.mark.parametrize("players", (2, 3, 4, 7, 8))
def test_observation_ignores_what_the_seat_cannot_see(players: int, preset: str) -> None:
    # cunning-agents has the Museum and the Theater
    state = GAME.new_game(players, {"district_preset": preset}, players)
    policy, shuffler = random.Random(1), random.Random(2)
    checked = 0
    while (decision := GAME.to_act(state)) is not None:
        seat = shuffler.randrange(players)
        shuffled = reshuffle_hidden(state, seat, shuffler)
        assert GAME.observation(shuffled, seat) == GAME.observation(state, seat)
        checked += 1
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))
    assert checked > 50


T = ActionType
# actions after which their card is seen by everyone (it is built): renaming it changes what
# the table legitimately sees
SHOWN = {T.BUILD, T.PAY_WITH_CARDS, T.CARDINAL_BUILD, T.FRAMEWORK}
# actions that send a hand card (or a set-aside one) face down towards the deck
FACE_DOWN = {T.PAY_CARD, T.DISCARD_CARD, T.LABORATORY, T.KEEP_CARD, T.DONE, T.MUSEUM}


# actions whose `district` names a district in a city, never a card of the actor's hand
CITY = {T.DESTROY, T.SEIZE, T.ARMORY, T.NECROPOLIS, T.TRADE_DISTRICTS}


def shown_card(action: Action) -> str | None:
    """The card of the actor's hand that `action` builds in the open, if any (the
    Necropolis action names the district it sacrifices, not the Necropolis it builds)."""
    if action.type is T.NECROPOLIS:
        return NECROPOLIS
    return action.district if action.type in SHOWN else None


Swap = tuple[int, int, str, bool]
"""(observer, owner, card, set aside): a card of `owner`'s hand, or of the cards it has set
aside this turn, that `observer` cannot see."""


def swap_with_deck(state: State, swap: Swap) -> tuple[State, str, int] | None:
    """Return a copy in which the card has changed places with the lowest other card of the
    deck, that card and its index from the top; None when the deck has no other card.

    Both places are hidden from the observer, so it cannot tell the two states apart.
    """
    _, owner, card, aside = swap
    deck = state.deck
    spare = next((i for i in range(len(deck) - 1, -1, -1)
                  if deck[i] not in (card, THIEVES_DEN)), None)
    if spare is None:
        return None
    other = GAME.clone(state)
    cards = other.aside if aside else other.hands[owner]
    replacement = other.deck[spare]
    cards[cards.index(card)], other.deck[spare] = replacement, card
    other.cache = None
    return other, replacement, spare


def sent(events: list[Event], state: State, seat: int) -> tuple[list[Json], dict[str, Json]]:
    """What `seat` is sent after a step: the events it may see and its observation."""
    return [e.to_wire() for e in events if e.visible(seat)], GAME.observation(state, seat)


def pick_swap(state: State, action: Action, actor: int, rng: random.Random) -> Swap | None:
    """Choose a hidden card to swap before `actor` plays `action`.

    The card a face-down action sends to the deck is preferred (the case that matters most);
    never the Thieves' Den (its payment needs it in hand), nor a card the action shows.
    """
    players = state.players
    if state.current_seat == actor and action.type in FACE_DOWN:
        owner, aside = actor, action.type in (T.DONE, T.KEEP_CARD)
        if action.type is T.DONE:
            card = rng.choice(state.aside) if state.aside else None
        else:
            card = action.district
    else:
        owner = rng.randrange(players)
        mine = [(c, False) for c in state.hands[owner]
                if not (owner == actor and c == shown_card(action))]
        if state.current_seat == owner:
            mine += [(c, True) for c in state.aside]
        card, aside = rng.choice(mine) if mine else (None, False)
    if card is None or card == THIEVES_DEN:
        return None
    if action.type is T.NECROPOLIS and owner == actor and card == NECROPOLIS:
        return None  # the Necropolis is built from the hand: the table sees it
    observer = rng.choice([s for s in range(players) if s != owner])
    if action.type is T.SWAP_HANDS and observer in (actor, action.seat):
        return None  # the observer receives the swapped hand: it sees the card by right
    if action.type is T.SPY and owner == action.seat:
        return None  # the table sees how many cards of the named type the hand holds
    if action.type is T.TAKE_CARD and owner == state.target:
        return None  # the Wizard names a card of the hand he is looking at
    if action.type is T.FORESEE and observer == actor:
        return None  # the Seer sees the card he takes
    if action.type is T.GIVE_CARD and observer == action.seat:
        return None  # the Seer's card goes to the observer: it sees it by right
    return observer, owner, card, aside


def check_swaps(players: int, seed: int, rng: random.Random,
                rules: dict[str, Json] | None = None) -> set[str]:
    """Play a random game; at every step, swap a hidden card with a deck card in a copy and
    play the same step there (the action renamed when it names the card): the observer
    must be sent exactly the same. Return the face-down action types so covered."""
    state = GAME.new_game(players, rules or {}, seed)
    policy = random.Random(derive_seed(seed, "policy"))
    covered: set[str] = set()
    while (decision := GAME.to_act(state)) is not None:
        action = GAME.random_action(state, decision.seat, policy)
        choice = pick_swap(state, action, decision.seat, rng)
        swapped = None if choice is None else swap_with_deck(state, choice)
        events = GAME.apply(state, decision.seat, action)
        if choice is None or swapped is None:
            continue
        observer, owner, card, _ = choice
        other, replacement, spare = swapped
        renamed = action
        if owner == decision.seat and action.district == card and action.type not in CITY:
            renamed = make(action.type, action.character, replacement, action.seat)
        other_events = GAME.apply(other, decision.seat, renamed)
        if sum(len(e.data["cards"]) for e in events if e.kind == "drew_cards") > spare:
            continue  # the step drew the deck down to the swapped card
        if events and events[-1].kind == "game_ended":
            continue  # the final scores reveal a Secret Vault held in a hand
        assert sent(other_events, other, observer) == sent(events, state, observer), (
            f"seat {observer} is sent something else when seat {owner}'s hidden {card} is "
            f"{replacement} instead ({decision.kind} {action.to_wire()})")
        if owner == decision.seat and action.type in FACE_DOWN:
            covered.add(f"{decision.kind}/{action.type.value}")
    return covered


def test_a_card_that_leaves_a_hand_face_down_is_never_sent_to_another_seat() -> None:
    # the first game of `arena simulate machiavelli -p 4 --seed 2` pays the Thieves' Den
    # with six hand cards (issue 17); then more games, for the other ways to the deck
    rng = random.Random(17)
    covered = check_swaps(4, derive_seed(2, "game", 0), rng)
    assert "thieves_den/done" in covered
    for players, seed in ((2, 1), (3, 2), (4, 3), (5, 4), (7, 5), (4, 0), (4, 1)):
        covered |= check_swaps(players, seed, rng)
    assert {"thieves_den/pay_card", "thieves_den/done", "exchange_cards/discard_card",
            "exchange_cards/done", "turn/laboratory", "keep_card/keep_card"} <= covered
    museum = {"district_preset": "cunning-agents"}
    for players, seed in ((3, 9), (4, 10), (5, 11)):
        covered |= check_swaps(players, seed, rng, museum)
    assert "turn/museum" in covered


def test_no_leak_of_other_hands_or_characters() -> None:
    state = GAME.new_game(4, {}, 3)
    policy = random.Random(4)
    while (decision := GAME.to_act(state)) is not None:
        for seat in range(4):
            obs = GAME.observation(state, seat)
            text = json.dumps(obs)
            assert "rng" not in obs and "deck" not in obs and "facedown" not in text
            assert obs["hand"] == state.hands[seat]
            revealed = {c for _, c in state.revealed}
            for other in range(4):
                for c in state.chars[other]:
                    if other != seat and c not in revealed and c.wire in text:
                        # a hidden character may appear only as public knowledge
                        assert c.wire in (obs["killed"], obs["robbed"], *obs["cast"],
                                          *obs["faceup_discards"])
            assert "characters" in obs and set(obs["characters"]) == {
                c.wire for c in state.chars[seat]}
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))


PRIVATE = {"drew_cards", "own_pick", "own_discard", "characters_offered", "own_kept",
           "hand_received", "own_paid", "own_museum", "own_swap"}


def test_private_events_go_only_to_their_seat() -> None:
    state = GAME.new_game(4, {}, 8)
    policy = random.Random(5)
    kinds: set[str] = set()
    while (decision := GAME.to_act(state)) is not None:
        for event in GAME.apply(state, decision.seat,
                                GAME.random_action(state, decision.seat, policy)):
            if event.kind in PRIVATE:
                assert event.visible_to == frozenset({event.data["seat"]}), event
                kinds.add(event.kind)
            else:
                assert event.visible_to is None, event
    assert {"drew_cards", "own_pick", "characters_offered"} <= kinds


WITCH_CAST = ["witch", "thief", "magician", "king", "bishop", "merchant", "architect",
              "warlord"]


def witch_rules(players: int, second: str = "thief") -> dict[str, Json]:
    cast = [second if c == "thief" else c for c in WITCH_CAST]
    return {"characters": cast + (["tax_collector"] if players in (3, 8) else [])}


@pytest.mark.parametrize("second", ("thief", "blackmailer"))
@pytest.mark.parametrize("players", (2, 3, 4, 6, 8))
def test_the_witch_creates_no_secret(players: int, second: str) -> None:
    """Whom the Witch bewitched is public (named aloud); who she is stays hidden until she
    is called, like every character; her options (any character of the cast) and each
    seat's decision never depend on who holds which hidden character, nor, when she lays
    the Blackmailer's threats, which one bears the flower (her secret then)."""
    state = GAME.new_game(players, witch_rules(players, second), players)
    policy, shuffler = random.Random(3), random.Random(4)
    spells: set[str] = set()
    while (decision := GAME.to_act(state)) is not None:
        seat = shuffler.randrange(players)
        shuffled = reshuffle_hidden(state, seat, shuffler)
        assert GAME.observation(shuffled, seat) == GAME.observation(state, seat)
        if decision.kind == "turn":
            mine = reshuffle_hidden(state, decision.seat, shuffler)
            assert GAME.to_act(mine) == decision
            spells.add(str(decision.context.get("spell")))
        witch = next((s for s, held in enumerate(state.chars)
                      if Character.WITCH in held), None)
        called = any(c is Character.WITCH for _, c in state.revealed)
        for other in range(players):
            obs = GAME.observation(state, other)
            if other != witch and not called:
                assert "witch" not in obs["characters"]
                assert all(r["character"] != "witch" for r in obs["revealed"])
            assert obs["bewitched"] == (state.bewitched.wire if state.bewitched else None)
        GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat, policy))
    assert {"witch", "bewitched", "resumed"} <= spells


def test_the_bewitched_holders_hidden_cards_stay_hidden() -> None:
    """The swap check (a hidden card changed with a deck card is never sent to another
    seat) over games with the Witch: the resumed Witch's Magician, Warlord and builds."""
    rng = random.Random(19)
    for players, seed in ((2, 6), (4, 7), (5, 8), (8, 9)):
        check_swaps(players, seed, rng, witch_rules(players))


MARKER_CASTS = ({"cast": "ambitious-aristocrats"}, {"cast": "devious-dignitaries"},
                {"cast": "cunning-agents"})
"""Casts with characters who lay face-down markers: the Magistrate; the Magistrate and the
Blackmailer; the Witch and the Blackmailer (she may lay his threats)."""


def other_secret(state: State, observer: int, rng: random.Random) -> State | None:
    """A copy in which a real marker `observer` did not lay lies elsewhere among the
    markers in force (or is gone); None when there is no other place for one."""
    kinds = [("warrants", "signed", "magistrate", 3), ("threats", "flower", "blackmailer", 2)]
    rng.shuffle(kinds)
    for markers, real, owner, laid in kinds:
        placed = getattr(state, markers)
        if not placed or getattr(state, owner) == observer:
            continue
        places = [c for c in [*placed, None] if c is not getattr(state, real)]
        if len(placed) == laid:
            places.remove(None)  # none was settled yet: one of them is the real one
        other = GAME.clone(state)
        setattr(other, real, rng.choice(places))
        other.cache = None
        return other
    return None


def other_placement(action: Action, rng: random.Random) -> Action:
    """The same markers with another one real."""
    assert action.character is not None and action.decoys is not None
    markers = sorted((action.character, *action.decoys))
    real = rng.choice([c for c in markers if c is not action.character])
    return make(action.type, real, decoys=tuple(c for c in markers if c is not real))


REVEALS = {T.CONFISCATE, T.REVEAL_THREAT}
"""Actions that reveal the real marker (legal only where it is)."""


def check_markers(players: int, seed: int, rules: dict[str, Json],
                  rng: random.Random) -> set[str]:
    """Play a random game; at every step, for a seat that did not lay the markers, play the
    same step in a copy where the real marker is another one (or, at the placement, make
    another one real): that seat must be sent exactly the same. Return what was covered."""
    state = GAME.new_game(players, rules, seed)
    policy = random.Random(derive_seed(seed, "policy"))
    covered: set[str] = set()
    while (decision := GAME.to_act(state)) is not None:
        action = GAME.random_action(state, decision.seat, policy)
        observer = rng.randrange(players)
        other, renamed = other_secret(state, observer, rng), action
        if action.type in (T.PLACE_WARRANTS, T.THREATEN) and observer != decision.seat:
            other, renamed = GAME.clone(state), other_placement(action, rng)
        if action.type in REVEALS:
            other = None
        events = GAME.apply(state, decision.seat, action)
        if other is None:
            covered.update(e.kind for e in events
                           if e.kind in ("confiscated", "threat_revealed"))
            continue
        other_events = GAME.apply(other, decision.seat, renamed)
        assert sent(other_events, other, observer) == sent(events, state, observer), (
            f"seat {observer} is sent something else when another marker is the real one "
            f"({decision.kind} {action.to_wire()})")
        covered.add(f"{decision.kind}/{action.type.value}")
    return covered


@pytest.mark.parametrize("rules", MARKER_CASTS, ids=lambda r: str(r["cast"]))
def test_which_marker_is_real_is_never_sent_to_another_seat(rules: dict[str, Json]) -> None:
    rng = random.Random(12)
    covered: set[str] = set()
    for players in range(3, 9):
        for seed in range(3):
            covered |= check_markers(players, derive_seed(seed, "markers"), rules, rng)
    # placements, the decisions on decoys and on the real ones, and (apart) the reveals
    expected = {"ambitious-aristocrats": {"turn/place_warrants", "warrant/done",
                                          "turn/build", "confiscated"},
                "devious-dignitaries": {"turn/place_warrants", "warrant/done", "turn/threaten",
                                        "bribe/pay_bribe", "bribe/refuse_bribe",
                                        "reveal_threat/done", "threat_revealed"},
                "cunning-agents": {"turn/threaten", "bribe/pay_bribe", "reveal_threat/done",
                                   "threat_revealed"}}
    assert expected[str(rules["cast"])] <= covered


def test_the_signed_warrant_is_in_the_magistrates_observation_alone() -> None:
    state = GAME.new_game(5, {"cast": "ambitious-aristocrats"}, 4)
    policy = random.Random(4)
    seen = 0
    while (decision := GAME.to_act(state)) is not None:
        for seat in range(5):
            obs = GAME.observation(state, seat)
            assert obs["warrants"] == [c.wire for c in state.warrants]
            mine = seat == state.magistrate and state.signed is not None
            assert obs["signed_warrant"] == (state.signed.wire if mine else None)  # type: ignore[union-attr]
            seen += mine
        events = GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat,
                                                                     policy))
        for event in events:
            if event.kind == "own_warrant":
                assert event.visible_to == frozenset({state.magistrate})
            elif event.kind in ("warrants_placed", "warrant_passed", "confiscated"):
                assert event.visible_to is None and "signed" not in event.data
    assert seen


def test_the_flower_is_in_the_blackmailers_observation_alone() -> None:
    state = GAME.new_game(6, {"cast": "devious-dignitaries"}, 5)
    policy = random.Random(5)
    seen = 0
    while (decision := GAME.to_act(state)) is not None:
        for seat in range(6):
            obs = GAME.observation(state, seat)
            assert obs["threats"] == [c.wire for c in state.threats]
            mine = seat == state.blackmailer and state.flower is not None
            assert obs["flower"] == (state.flower.wire if mine else None)  # type: ignore[union-attr]
            seen += mine
        events = GAME.apply(state, decision.seat, GAME.random_action(state, decision.seat,
                                                                     policy))
        for event in events:
            if event.kind == "own_threat":
                assert event.visible_to == frozenset({state.blackmailer})
            elif event.kind != "threat_revealed":
                assert "flower" not in event.data
    assert seen
