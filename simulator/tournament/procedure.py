"""A tournament as a procedure: the game's kernel under every seating of every deal.

The engine runs a tournament like any procedure: ``trials`` counts deals, and for each deal the
tournament kernel calls the game's own kernel once, with one packed row per seating in place of
the game's variants, for that single trial. The game kernel plays its variants on the same random
streams (common random numbers), so every seating of a deal gets the same deal and the same chance
events for as long as the games agree, and each decision reads its own sub-stream
(:mod:`simulator.agents.streams`), so a seat's search never moves another game's dice.

From each deal's per-seating results the kernel computes per-deal values — each entrant's mean
win share, seat shares, head-to-head shares, differences between entrants — and folds them into
the usual integer sufficient statistics. Intervals are therefore per deal, the unit that is
independent, never per game (the seatings of one deal are strongly correlated).

Metrics (``E`` entrants, ``S`` seats, names as in the ``tournament:`` section):

- ``agent_wins.<e>``: entrant ``e``'s win share per seat it holds (ties split; ``1/S`` when all
  entrants are equal);
- ``seat_wins.seat<k>``: seat ``k``'s win share over the seatings — every entrant sits there
  equally often, so this is the seat advantage with agents controlled for;
- ``matchup.<a>.<b>``: of the wins that went to ``a`` or ``b`` in the deal's games where both
  played, ``a``'s share (defined on deals where either won something);
- ``gap.<a>.<b>``: ``agent_wins.<a> - agent_wins.<b>`` per deal, for paired tests of the ladder;
- ``h2h.<a>.<b>``: ``a``'s summed win share in games with ``b`` (Bradley–Terry input);
- the game's own proportion, mean and distribution metrics (other than ``wins.seat*``), averaged
  over the seatings (a distribution becomes its mean).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import ValidationError

from simulator.accumulate import UNDEFINED, layout
from simulator.procedures.base import Metric, Params, Procedure
from simulator.tournament.spec import TournamentSpec, seatings

#: Per-deal head-to-head ratios are stored as integers in millionths.
RATIO_SCALE = 1_000_000
WIN_PREFIX = "wins.seat"


def win_metrics(game: Procedure, params: Params) -> list[Metric]:
    """The game's ``wins.seatN`` metrics, in seat order (they give the number of seats)."""
    ms = [m for m in game.metrics(params) if m.name.startswith(WIN_PREFIX)]
    return sorted(ms, key=lambda m: int(m.name[len(WIN_PREFIX) :]))


def with_policies(game: Procedure, params: Params, policies: list[Any]) -> Params:
    """``params`` with the seats' agents replaced, validated again by the game (a game that does
    not implement a rung rejects it here)."""
    data = params.model_dump(mode="python")
    data["policies"] = [a.model_dump() for a in policies]
    return game.params_model.model_validate(data)


@dataclass(frozen=True)
class Layout:
    """What the kernel needs to read one variant's packed row."""

    seatings: np.ndarray  # (J, S) entrant of each seat
    win_index: np.ndarray  # (S,) game metric index of wins.seat k
    win_scale: int
    extra_index: np.ndarray  # game metric indices averaged over seatings
    extra_scale: np.ndarray


class Tournament:
    """The tournament of ``spec``'s entrants at ``game``; its bound methods are the wrapper
    procedure's ``metrics``, ``pack`` and ``kernel``. Pickles by the game's module, so a plan
    can travel to a Dask worker."""

    def __init__(self, game: Procedure, spec: TournamentSpec) -> None:
        self.game = game
        self.spec = spec
        self.entrants = spec.entrants()
        self.specs = spec.specs()

    def __reduce__(self) -> tuple[Any, ...]:
        if _knows_steps(self.game):
            # The game specialised for a designer's rule steps: it pickles by the files' paths.
            return (Tournament, (self.game, self.spec))
        module = getattr(self.game.kernel, "__module__", None)
        return (_tournament_of, (module, self.game.name, self.spec.model_dump(mode="json")))

    # -- structure ---------------------------------------------------------------------------

    def seats(self, params: Params) -> int:
        return len(win_metrics(self.game, params))

    def seatings(self, params: Params) -> list[tuple[int, ...]]:
        return seatings(self.spec.seatings, len(self.entrants), self.seats(params))

    def pairs(self) -> list[tuple[int, int]]:
        n = len(self.entrants)
        return [(a, b) for a in range(n) for b in range(n) if a != b]

    def _extras(self, params: Params) -> list[tuple[int, Metric]]:
        return [
            (i, m)
            for i, m in enumerate(self.game.metrics(params))
            if not m.name.startswith(WIN_PREFIX)
            and m.kind in ("proportion", "mean", "distribution")
        ]

    def metrics(self, params: Params) -> list[Metric]:
        seats = self.seats(params)
        table = self.seatings(params)
        wins = win_metrics(self.game, params)
        scale = wins[0].scale
        held = _seats_held(table, len(self.entrants))
        out = [
            Metric(
                f"agent_wins.{e}",
                "mean",
                f"{e}: win share per seat held (ties split; 1/{seats} if all play alike)",
                scale=scale * held,
            )
            for e in self.entrants
        ]
        out += [
            Metric(
                f"seat_wins.seat{k + 1}",
                "mean",
                f"seat {k + 1}'s win share, every entrant seated there equally often",
                scale=scale * len(table),
            )
            for k in range(seats)
        ]
        names = self.entrants
        out += [
            Metric(
                f"matchup.{names[a]}.{names[b]}",
                "conditional_mean",
                f"{names[a]}'s share of the wins of {names[a]} and {names[b]} in games with both",
                scale=RATIO_SCALE,
                headline=False,
            )
            for a, b in self.pairs()
        ]
        out += [
            Metric(
                f"gap.{names[a]}.{names[b]}",
                "mean",
                f"agent_wins.{names[a]} minus agent_wins.{names[b]} (paired per deal)",
                scale=scale * held,
                headline=False,
            )
            for a, b in self.pairs()
            if a < b
        ]
        out += [
            Metric(
                f"h2h.{names[a]}.{names[b]}",
                "mean",
                f"{names[a]}'s summed win share in the deal's games with {names[b]}",
                scale=scale,
                headline=False,
            )
            for a, b in self.pairs()
        ]
        for _, m in self._extras(params):
            out.append(
                Metric(
                    m.name,
                    # A mean over seatings is no 0/1 proportion: a normal interval per deal.
                    "mean",
                    f"{m.description} (mean over the seatings)",
                    scale=m.scale * len(table),
                    headline=False,
                )
            )
        return out

    def check(self, params: Params) -> str | None:
        """Why this tournament cannot be played with ``params`` (None when it can)."""
        if "policies" not in self.game.params_model.model_fields:
            return f"{self.game.name} has no players to seat (no `policies` parameter)"
        seats = self.seats(params)
        if seats < 2:
            return f"{self.game.name} does not report wins.seatN for two or more seats"
        try:
            table = self.seatings(params)
        except ValueError as e:
            return str(e)
        if len({_seats_held(table, len(self.entrants))}) != 1:
            return "the seatings do not give every entrant the same number of seats"
        for spec in self.specs:
            try:
                with_policies(self.game, params, [spec] * seats)
            except ValidationError as e:  # the game does not implement this rung
                first = e.errors()[0]["msg"].removeprefix("Value error, ")
                return f"{self.game.name} cannot seat {spec.agent!r}: {first}"
        return None

    # -- packing -----------------------------------------------------------------------------

    def pack(self, params: Params) -> np.ndarray:
        """Header, then one game row per seating (padded to a common width)."""
        table = self.seatings(params)
        game_metrics = self.game.metrics(params)
        hist_max = [m.max_value if m.kind == "distribution" else -1 for m in game_metrics]
        offsets, maxima, n_slots = layout(hist_max)
        rows = [
            self.game.pack(with_policies(self.game, params, [self.specs[e] for e in seating]))
            for seating in table
        ]
        width = max(len(r) for r in rows)
        body = np.zeros((len(rows), width), dtype=np.float64)
        for j, r in enumerate(rows):
            body[j, : len(r)] = r
        seats = len(table[0])
        wins = [game_metrics.index(m) for m in win_metrics(self.game, params)]
        extras = self._extras(params)
        head = [len(rows), width, seats, n_slots, len(game_metrics), len(extras)]
        head += list(offsets) + list(maxima) + wins + [i for i, _ in extras]
        head += [e for seating in table for e in seating]
        return np.concatenate([np.asarray([len(head) + 1, *head], dtype=np.float64), body.ravel()])

    # -- the kernel --------------------------------------------------------------------------

    def kernel(
        self,
        packed: np.ndarray,
        key: np.uint64,
        first_trial: np.int64,
        n_trials: np.int64,
        hist_offset: np.ndarray,
        hist_max: np.ndarray,
        n_slots: np.int64,
    ) -> np.ndarray:
        """Statistics of deals ``first_trial ..`` under every variant row of ``packed``."""
        from simulator.accumulate import accumulate_block

        n_variants = packed.shape[0]
        n = int(n_trials)
        values = None
        for v in range(n_variants):
            unpacked = _unpack(packed[v])
            per_deal = self._deal_values(unpacked, key, int(first_trial), n)
            if values is None:
                values = np.full((n_variants, per_deal.shape[0], n), UNDEFINED, dtype=np.int64)
            values[v] = per_deal
        stats = np.zeros((n_variants, int(n_slots)), dtype=np.int64)
        assert values is not None
        accumulate_block(stats, values, np.int64(n), hist_offset, hist_max)
        return stats

    def _deal_values(self, u: dict[str, Any], key: np.uint64, first: int, n: int) -> np.ndarray:
        table: np.ndarray = u["seatings"]
        n_seatings, seats = table.shape
        results = np.empty((n, n_seatings, int(u["n_slots"])), dtype=np.int64)
        for i in range(n):
            results[i] = self.game.kernel(
                u["rows"],
                key,
                np.int64(first + i),
                np.int64(1),
                u["offsets"],
                u["maxima"],
                np.int64(u["n_slots"]),
            )
        sums = results[:, :, 1::4][:, :, : int(u["n_metrics"])]  # (n, J, game metrics)
        shares = sums[:, :, u["wins"]]  # (n, J, S), scaled by the game's win scale
        ents = len(self.entrants)
        masks = np.stack([table == e for e in range(ents)])  # (E, J, S)
        raw = np.einsum("njs,ejs->ne", shares, masks)  # (n, E)
        present = np.asarray(masks.any(axis=2))  # (E, J)
        per_game = np.einsum("njs,ejs->nej", shares, masks)  # (n, E, J)
        rows: list[np.ndarray] = [raw[:, e] for e in range(ents)]
        rows += [shares[:, :, k].sum(axis=1) for k in range(seats)]
        h2h = {}
        for a, b in self.pairs():
            both = present[a] & present[b]
            h2h[a, b] = per_game[:, a, :][:, both].sum(axis=1)
        for a, b in self.pairs():
            sa, sb = h2h[a, b], h2h[b, a]
            total = sa + sb
            ratio = np.full(n, UNDEFINED, dtype=np.int64)
            ok = total > 0
            # Integer rounding of a * RATIO_SCALE / (a + b), exact in int64 for any share sums.
            ratio[ok] = (2 * sa[ok] * RATIO_SCALE + total[ok]) // (2 * total[ok])
            rows.append(ratio)
        rows += [raw[:, a] - raw[:, b] for a, b in self.pairs() if a < b]
        rows += [h2h[a, b] for a, b in self.pairs()]
        rows += [sums[:, :, i].sum(axis=1) for i in u["extras"]]
        return np.stack(rows).astype(np.int64)


def _seats_held(table: list[tuple[int, ...]], entrants: int) -> int:
    """Seats each entrant holds over all seatings (the same for every entrant by design)."""
    counts = [sum(row.count(e) for row in table) for e in range(entrants)]
    if len(set(counts)) != 1:
        raise ValueError(f"unbalanced seatings: seats held per entrant {counts}")
    return counts[0]


def _unpack(row: np.ndarray) -> dict[str, Any]:
    h = int(row[0])
    head = row[1:h].astype(np.int64)
    n_seatings, width, seats, n_slots, n_metrics, n_extras = (int(x) for x in head[:6])
    pos = 6
    offsets = head[pos : pos + n_metrics].copy()
    pos += n_metrics
    maxima = head[pos : pos + n_metrics].copy()
    pos += n_metrics
    wins = head[pos : pos + seats].copy()
    pos += seats
    extras = head[pos : pos + n_extras].copy()
    pos += n_extras
    table = head[pos : pos + n_seatings * seats].reshape(n_seatings, seats)
    rows = np.ascontiguousarray(row[h : h + n_seatings * width].reshape(n_seatings, width))
    return {
        "n_slots": n_slots,
        "n_metrics": n_metrics,
        "offsets": offsets,
        "maxima": maxima,
        "wins": wins,
        "extras": extras,
        "seatings": table,
        "rows": rows,
    }


def tournament_procedure(game: Procedure, spec: TournamentSpec) -> Procedure:
    """The procedure that plays ``spec``'s tournament at ``game`` (named like the game)."""
    t = Tournament(game, spec)
    names = ", ".join(f"{k}={v}" for k, v in zip(t.entrants, t.specs, strict=True))
    return Procedure(
        name=game.name,
        title=f"{game.title}: tournament",
        rules=game.rules,
        params_model=game.params_model,
        metrics=t.metrics,
        pack=t.pack,
        kernel=t.kernel,
        notes=(
            *game.notes,
            f"Tournament of {len(t.entrants)} entrants ({names}); trials count deals, every "
            "deal played once per seating (docs/agents.md).",
        ),
        example=game.example,
    )


def tournament_of(procedure: Procedure) -> Tournament | None:
    """The tournament a procedure plays, or None for an ordinary procedure."""
    owner = getattr(procedure.kernel, "__self__", None)
    return owner if isinstance(owner, Tournament) else None


def _knows_steps(game: Procedure) -> bool:
    """Whether ``game`` is a registered game specialised for a designer's rule steps (its
    ``specialize``), not the registered procedure itself."""
    if game.specialize is None:
        return False
    from simulator import procedures

    try:
        return procedures.get(game.name) is not game
    except KeyError:
        return False


def _tournament_of(module: str | None, name: str, spec: dict[str, Any]) -> Tournament:
    game = None
    if module is not None:
        game = getattr(importlib.import_module(module), "PROCEDURE", None)
    if not isinstance(game, Procedure) or game.name != name:
        from simulator import procedures

        game = procedures.get(name)
    return Tournament(game, TournamentSpec.model_validate(spec))
