"""The game model's round end (limit, ender, last turn card, overshoot), ranking, values and pay."""

from __future__ import annotations

from types import SimpleNamespace

from tabletop_gym.envs.modern_art.rules import (
    AWARD,
    DOUBLE,
    DRAW,
    HIDDEN,
    NUM_SYMBOLS,
    PLAIN,
    SIMULTANEOUS,
)
from tabletop_gym.oracles.modern_art.model_base import _Game, _seat_reach


def _round_end(g: _Game) -> None:
    """Round end, round by round: the limit, the ender, the last turn card and the overshoot."""
    g.col = [[None] * g.A for _ in range(g.R)]
    g.tot = [[None] * g.A for _ in range(g.R)]
    for r in range(g.R):
        e = SimpleNamespace()
        _round_limit(g, r, e)
        _round_ender(g, r, e)
        _last_turn_card(g, r, e)
        _overshoot(g, r, e)


def _round_limit(g: _Game, r: int, e: SimpleNamespace) -> None:
    """Round end: an artist reaches the limit or every hand is empty; below the limit until the
    last display, which alone takes artists past ``limit - 1``."""
    m, V, B, n, A, L, rules, kinds_of = g.m, g.V, g.B, g.n, g.A, g.L, g.rules, g.kinds_of
    excess_max, turn, sec, down, extra, empty = g.excess_max, g.turn, g.sec, g.down, g.extra, g.empty
    col, tot = g.col, g.tot
    trig = [B(f"tr{r}_{a}") for a in range(A)]
    all_empty = B(f"ae{r}")
    for p in range(n):
        m.AddImplication(all_empty, empty[r][p])
    m.AddBoolOr(trig + [all_empty])
    exc = [V(0, excess_max, f"ex{r}_{a}") for a in range(A)]
    m.Add(sum(exc) <= excess_max)
    # Turn cards come one per display; only the last display may take an artist to the limit, so
    # of one artist at most one turn card (the last) lies above limit - 1.
    last = [B(f"lt{r}_{a}") for a in range(A)]
    m.AddAtMostOne(last)
    for a in range(A):
        up = sum(turn[r][p][k] + sec[r][p][k] for p in range(n) for k in kinds_of(a))
        col[r][a] = up + extra[r][a]
        tot[r][a] = col[r][a] + sum(down[r][p][k] for p in range(n) for k in kinds_of(a))
        endp = 0
        if rules.end_of_round_plays:
            endp = V(0, n, f"ep{r}_{a}")
        m.Add(col[r][a] <= L - 1 + exc[a] + endp)
        m.Add(sum(turn[r][p][k] for p in range(n) for k in kinds_of(a)) + extra[r][a] <= L - 1 + last[a])
        m.Add(col[r][a] >= L).OnlyEnforceIf(trig[a])
    e.trig = trig
    e.all_empty = all_empty
    e.exc = exc
    e.last = last


def _round_ender(g: _Game, r: int, e: SimpleNamespace) -> None:
    """Round end: who ends it (the player whose turn it was), that no one plays after the ender's
    last turn, and that the next round starts to its left."""
    m, B, n, R, st, T = g.m, g.B, g.n, g.R, g.st, g.T
    # Who ends the round: the player whose turn it was. The player to its left starts the next
    # round. Without empty hands nobody was skipped, so everyone from the starter to the ender
    # took one turn more than everyone after the ender. Unless every hand emptied, the round
    # ended in the ender's turn on a card of an artist at the limit: the ender displayed one
    # itself, or its simultaneous card brought it.
    pair = [[B(f"se{r}_{a}_{b}") for b in range(n)] for a in range(n)]  # starter a, ender b
    m.AddExactlyOne(x for row in pair for x in row)
    ender = [sum(pair[a][b] for a in range(n)) for b in range(n)]
    for a in range(n):
        m.Add(st[r][a] == sum(pair[a]))
    # No one plays after the ender's last turn: in the order from the starter, a player before
    # the ender took at most as many turns, one after it at most one fewer (skipped turns of
    # empty hands only lower these counts).
    for a in range(n):
        for b in range(n):
            for q in range(n):
                if q != b:
                    earlier = int((q - a) % n < (b - a) % n)
                    m.Add(T[r][q] <= T[r][b] - 1 + earlier).OnlyEnforceIf(pair[a][b])
    if r + 1 < R:
        for b in range(n):
            m.Add(st[r + 1][(b + 1) % n] == ender[b])
    e.pair = pair
    e.ender = ender


def _last_turn_card(g: _Game, r: int, e: SimpleNamespace) -> None:
    """Round end: the last turn card is the ender's, with one symbol; turn counts without empty
    hands; an ending hidden or draw card brings nothing."""
    m, V, B, n, A, total_hand, rules, kinds_of = g.m, g.V, g.B, g.n, g.A, g.total_hand, g.rules, g.kinds_of
    carries, turn, sec, down, unresolved_draw = g.carries, g.turn, g.sec, g.down, g.unresolved_draw
    empty, T = g.empty, g.T
    trig, all_empty, pair, ender = e.trig, e.all_empty, e.pair, e.ender
    most = V(1, total_hand, f"Tm{r}")
    last_sims = []
    last_by: list[list] = [[] for _ in range(A)]
    last_doubles: list[list] = [[] for _ in range(A)]
    last_awards: list = []
    full = [empty[r][p].Not() for p in range(n)]
    ends_flags: list = []
    for p in range(n):
        after = sum(pair[a][b] for a in range(n) for b in range(n) if (p - a) % n > (b - a) % n)
        m.Add(T[r][p] == most - after).OnlyEnforceIf(full)
        reasons = [all_empty]
        sim = B(f"sm{r}_{p}")
        m.Add(sum(turn[r][p][a * NUM_SYMBOLS + SIMULTANEOUS] for a in range(A)) >= 1).OnlyEnforceIf(sim)
        reasons.append(sim)
        for a in range(A):
            own_trigger = B(f"ot{r}_{p}_{a}")
            m.AddImplication(own_trigger, trig[a])
            m.Add(sum(turn[r][p][k] + sec[r][p][k] for k in kinds_of(a)) >= 1).OnlyEnforceIf(own_trigger)
            reasons.append(own_trigger)
        ends = B(f"en{r}_{p}")
        m.Add(ends == ender[p])
        ends_flags.append(ends)
        m.AddBoolOr([ends.Not()] + reasons)
        # The last turn card is the ender's: ``mine`` when it is of artist a.
        my_draws, my_hiddens = [], []
        for a in range(A):
            mine = B(f"lp{r}_{p}_{a}")
            m.AddImplication(mine, ends)
            m.Add(sum(turn[r][p][k] for k in kinds_of(a)) >= 1).OnlyEnforceIf(mine)
            last_by[a].append(mine)
            symbols = (SIMULTANEOUS, DOUBLE, DRAW, AWARD, HIDDEN)
            flags = [carries(mine, r, p, a, symbol) for symbol in symbols]
            last_sim, last_double, last_draw, last_award, last_hidden = flags
            last_sims.append(last_sim)
            last_doubles[a].append(last_double)
            my_draws.append(last_draw)
            last_awards.append(last_award)
            my_hiddens.append(last_hidden)
            # the last turn card has one symbol, and with none of these it is plain
            m.AddAtMostOne(flags)
            plain = turn[r][p][a * NUM_SYMBOLS + PLAIN]
            m.Add(plain >= 1).OnlyEnforceIf([mine] + [flag.Not() for flag in flags])
        if not rules.resolve_ending_card:
            # a hidden card that ends the round at the limit brings no face-down card
            hiddens = sum(turn[r][p][a * NUM_SYMBOLS + HIDDEN] for a in range(A))
            m.Add(sum(down[r][p]) <= hiddens - sum(my_hiddens) + all_empty)
        if unresolved_draw[r] is not None and not rules.resolve_ending_card:
            # a draw card that does not draw is the last turn card, at the limit, and a draw card
            # that ends the round at the limit draws nothing
            m.AddBoolOr(my_draws).OnlyEnforceIf(unresolved_draw[r][p])
            m.AddImplication(unresolved_draw[r][p], all_empty.Not())
            for last_draw in my_draws:
                m.AddBoolOr([last_draw.Not(), all_empty, unresolved_draw[r][p]])
    e.last_sims = last_sims
    e.last_by = last_by
    e.last_doubles = last_doubles
    e.last_awards = last_awards
    e.ends_flags = ends_flags


def _overshoot(g: _Game, r: int, e: SimpleNamespace) -> None:
    """Round end: what the last display adds above ``limit - 1`` (a double's second card or one
    answer per other player to a simultaneous card), and no award token from an ending award card."""
    m, B, n, A, rules, kinds_of, excess_max = g.m, g.B, g.n, g.A, g.rules, g.kinds_of, g.excess_max
    sec, aw, award_turns, answered = g.sec, g.aw, g.award_turns, g.answered
    all_empty, exc, last, last_sims, last_by = e.all_empty, e.exc, e.last, e.last_sims, e.last_by
    last_doubles, last_awards, ends_flags = e.last_doubles, e.last_awards, e.ends_flags
    # Only the last display takes artists past limit - 1: its turn card's artist, and (when it is
    # a simultaneous card) one more artist per other player, each through a second card.
    over = [B(f"ov{r}_{a}") for a in range(A)]
    answers: list[list] = [[] for _ in range(n)]
    for a in range(A):
        m.Add(exc[a] <= excess_max * over[a])
        # the turn card and a double's second card, or one simultaneous card per other player:
        # an answer to the ender's simultaneous card, so a second card of that artist this round
        # from a player other than the ender
        brought_by = []
        for p in range(n):
            flag = B(f"sb{r}_{a}_{p}")
            m.Add(sum(sec[r][p][k] for k in kinds_of(a)) >= 1).OnlyEnforceIf(flag)
            m.Add(answered[r][p][a] >= 1).OnlyEnforceIf(flag)  # an answer, not a double's second card
            m.AddImplication(flag, ends_flags[p].Not())
            brought_by.append(flag)
            answers[p].append(flag)
        m.AddBoolOr([over[a].Not(), last[a], *brought_by])
        m.Add(exc[a] <= last[a] + sum(last_doubles[a]) + sum(brought_by))
        m.Add(exc[a] <= last[a] + sum(last_doubles[a]) + (n - 1) * sum(last_sims))
    m.Add(sum(over) <= 1 + (n - 1) * sum(last_sims))
    for flags in answers:  # each other player answers the last simultaneous card once at most
        m.AddAtMostOne(flags)
    m.Add(sum(exc) <= 1 + sum(sum(x) for x in last_doubles) + (n - 1) * sum(last_sims))
    for a in range(A):
        m.Add(last[a] == sum(last_by[a]))
    # A round in which some hand still holds cards ended at the limit, on a last turn card; if that
    # is an award card, its display reached the limit, so its award token is not placed.
    m.Add(sum(last) >= 1 - all_empty)
    if not rules.resolve_ending_card:
        m.Add(sum(aw[r]) <= award_turns[r] - sum(last_awards) + all_empty)


def _ranking(g: _Game) -> None:
    """Ranking: the artists rank by this round's cards, ties to board order, exactly as the engine
    ranks; artists with no card cannot place."""
    m, B, R, A, P, tot = g.m, g.B, g.R, g.A, g.P, g.tot
    place = []
    for r in range(R):
        pl = [[B(f"pl{r}_{a}_{j}") for j in range(P)] for a in range(A)]
        place.append(pl)
        for j in range(P):
            m.AddAtMostOne(pl[a][j] for a in range(A))
            if j:
                m.Add(sum(pl[a][j] for a in range(A)) <= sum(pl[a][j - 1] for a in range(A)))
        gt = {}
        for a in range(A):
            for b in range(a + 1, A):
                above = B(f"gt{r}_{a}_{b}")  # a ranks above b: at least as many cards (a is earlier)
                m.Add(tot[r][a] >= tot[r][b]).OnlyEnforceIf(above)
                m.Add(tot[r][a] < tot[r][b]).OnlyEnforceIf(above.Not())
                gt[a, b], gt[b, a] = above, above.Not()
        for a in range(A):
            m.AddAtMostOne(pl[a])
            for j in range(P):
                m.Add(tot[r][a] >= 1).OnlyEnforceIf(pl[a][j])
                for b in range(A):
                    if b != a:
                        m.AddBoolOr([pl[a][j].Not(), gt[b, a].Not()] + [pl[b][i] for i in range(j)])
    g.place = place


def _pay(g: _Game, seat: int) -> None:
    """Values and pay: the seat's pay, linear in the tokens each artist holds (see the comments),
    and the same pay as one product; the objective."""
    m, V, B, n, R, A, L, P, tokens, rules = g.m, g.V, g.B, g.n, g.R, g.A, g.L, g.P, g.tokens, g.rules
    cards, kinds_of, excess_max, turn, sec, down = g.cards, g.kinds_of, g.excess_max, g.turn, g.sec, g.down
    aw, place = g.aw, g.place
    tok = rules.value_tokens
    pay = []
    # The pay, linear: value x own is a sum over the tokens the artist holds (one per place won in an
    # earlier or this round, one per award token), each times the seat's cards of it this round. A
    # token goes to one artist, so each token term pays for one artist's cards only; the LP sees that.
    # One artist's face-up cards stop at the limit minus one plus the last display (a simultaneous
    # card at the limit brings one card per other player, a double one more); past that only the
    # seat's face-down cards add to its own, and it can put down no more hidden cards than it holds.
    up_max = L - 1 + excess_max + (n if rules.end_of_round_plays else 0)
    # What the seat can hold by round r, whatever the starters and draws: hidden cards, and of each
    # artist (free deal: the deck's counts).
    seat_reach = _seat_reach(rules, cards, seat)
    hidden_max = seat_reach["hidden"]
    awb = [[[B(f"ab{r}_{a}_{i}") for i in range(tokens)] for a in range(A)] for r in range(R)]
    for r in range(R):
        for a in range(A):
            m.Add(aw[r][a] == sum(awb[r][a]))
    for r in range(R):
        for a in range(A):
            placed = sum(place[r][a])
            cap = min(up_max + hidden_max[r], seat_reach["artist"][a][r])
            seat_down = sum(down[r][seat][k] for k in kinds_of(a))
            own = V(0, cap, f"o{r}_{a}")
            m.Add(own == sum(turn[r][seat][k] + sec[r][seat][k] + down[r][seat][k] for k in kinds_of(a)))
            terms = []
            units = [[(tok[j], place[q][a][j]) for j in range(P)] for q in range(r + 1)]
            units += [[(rules.award_value, awb[q][a][i])] for q in range(r + 1) for i in range(tokens)]
            for group in units:  # an artist wins one place a round: one token of each group at most
                zs = []
                for weight, unit in group:
                    z = V(0, cap, "")
                    m.Add(z <= cap * unit)
                    m.Add(z <= min(cap, up_max) * unit + seat_down)
                    m.Add(z <= cap * placed)
                    zs.append(z)
                    terms.append(weight * z)
                m.Add(sum(zs) <= own)
            round_value = max(tok) * (r + 1) + rules.award_value * tokens
            pa = V(0, round_value * cap, f"pay{r}_{a}")
            m.Add(pa == sum(terms))
            m.Add(pa <= round_value * own)
            # The same pay as one product too: CP-SAT propagates and cuts it differently.
            value = V(0, round_value, f"v{r}_{a}")
            m.Add(value == sum(tok[j] * place[q][a][j] for q in range(r + 1) for j in range(P))
                  + rules.award_value * sum(aw[q][a] for q in range(r + 1)))  # fmt: skip
            prod = V(0, round_value * cap, f"pr{r}_{a}")
            m.AddMultiplicationEquality(prod, [value, own])
            m.Add(pa <= prod)
            m.Add(pa <= cap * value)
            pay.append(pa)
    m.Maximize(sum(pay))
