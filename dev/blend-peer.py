#!/usr/bin/env python3
"""The numpy peer of the default model's own arithmetic (the blend), timed beside the engine.

Reads ENGINE_DIR/engine-blend.json and, per target count, the model state the engine
exported at its question's moment (ENGINE_DIR/blend-N/: `BlendModel.peerState(at:)`,
written by `engine-peer OUTDIR --blend`; see dev/blend-peer.sh, which runs both in the
same minute). Then, per question, it computes what the blend computes, vectorised over
targets with numpy as a competent user would write it:

  - the profile's five group log-scores: one float64 `L @ X` (the log-profile matrix,
    converted to float64 once at load, times the moment's input spread over five
    columns, one per group), plus the previous target's transition column;
  - the logistic part's log-probabilities: `W @ x` plus the previous-target column,
    minus their log-sum-exp;
  - the clock's kernels (24 hour-wide and 96 quarter-hour von Mises kernels, with the
    trigonometry and exponentials of the moment's minute), the decay factors, and
    every per-target signal: frecency, recent and usual use at this time of day, habit
    change, quarter-hour share, frequency, log age, the transition from the previous
    target, the recency ranks (top 8 by last use), back-to-previous, repeat buckets,
    the routine signal (nested counts) and the habit-rate and calendar-lift signals
    (the calendar families' Beta-Binomial evidence over the last 182 days, all active
    targets at once with `bincount`);
  - the weighted sum, the softmax and the top 4 (`argpartition`, then the four sorted).

It gets the engine's inputs, not its intermediate results: the learned state (decayed
sums with their anchors, counts, the uses by day, the matrices) and the two encoded
moment vectors of the products (the engine encodes them per question too). It checks
its log-scores against the engine's (relative 1e-9) and its top 4 against the blend's
top 4 by score, then times each question over as many calls as the engine timed, and
prints engine/peer ratios.

Usage: dev/blend-peer.py ENGINE_DIR   (writes ENGINE_DIR/python-blend.json)
"""

import json
import os
import sys
import time

import numpy as np
from scipy.special import gammaln

from timing import percentiles  # dev/timing.py, beside this script

FAMILIES = [(1, 0.5), (2, 0.2), (7, 0.1), (14, 0.025), (21, 0.025), (28, 0.025), (31, 0.025), (2, 0.025),
            (35, 0.025), (14, 0.025)]
CHANGE_FAMILIES = 3
CHANGE_AGES = [14, 7, 3]
NO_CHANGE_PRIOR = 0.85
LOOKBACK_DAYS = 182
CELL_HALF_LIFE = 4.0
EVIDENCE_HALF_LIFE = 60.0
STRENGTH = 2.0
FLOOR_RATE = 1e-4
HORIZON = 60.0
SOON_HALF_LIFE = 30.0
FLAT_PRIOR = 0.2
FLAT_MINIMUM_USES = 10.0
ACTIVITY_BEFORE, ACTIVITY_AFTER = 120.0, 180.0
MEAN_SOON_WEIGHT = SOON_HALF_LIFE / np.log(2) * (1 - np.exp2(-HORIZON / SOON_HALF_LIFE)) / HORIZON
ROUTINE = (1.0, 4.0, 2.0, 2.0)  # frequency, day, time, follow


def load(directory):
    with open(os.path.join(directory, "state.json")) as handle:
        manifest = json.load(handle)
    kinds = {"f64": np.float64, "f32": np.float32, "i64": np.int64}
    arrays = {}
    for name, entry in manifest["arrays"].items():
        arrays[name] = np.fromfile(os.path.join(directory, entry["file"]), dtype=kinds[entry["type"]])
        assert arrays[name].size == entry["count"], name
    return manifest["scalars"], manifest["features"], arrays


def calendar_cells(days):
    """Each day's cell in every calendar family (days since 1970-01-01), shape (days, 10)."""
    dates = np.datetime64("1970-01-01", "D") + days.astype("timedelta64[D]")
    months = dates.astype("datetime64[M]")
    day_of_month = (dates - months).astype(np.int64) + 1
    days_in_month = ((months + 1).astype("datetime64[D]") - months.astype("datetime64[D]")).astype(np.int64)
    weekday = ((days % 7) + 7 + 3) % 7
    week = np.floor((days + 3) / 7).astype(np.int64)
    to_end = days_in_month - day_of_month
    cells = np.empty((days.size, 10), dtype=np.int64)
    cells[:, 0] = 0
    cells[:, 1] = weekday >= 5
    cells[:, 2] = weekday
    cells[:, 3] = weekday * 2 + week % 2
    cells[:, 4] = weekday * 3 + week % 3
    cells[:, 5] = weekday * 4 + week % 4
    cells[:, 6] = day_of_month - 1
    cells[:, 7] = to_end == 0
    cells[:, 8] = weekday * 5 + np.minimum((day_of_month - 1) // 7 + 1, 5) - 1
    cells[:, 9] = weekday * 2 + (to_end < 7)
    return cells


def log_beta(a, b):
    return gammaln(a) + gammaln(b) - gammaln(a + b)


class Peer:
    """One user's state, as arrays; `log_scores()` answers the exported moment."""

    def __init__(self, scalars, features, arrays):
        self.s = scalars
        self.a = arrays
        self.f = {name: i for i, name in enumerate(features)}
        self.features = len(features)
        self.T = int(scalars["targets"])
        T = self.T
        self.weights = arrays["weights"]
        tk, fk = int(scalars["timeKernels"]), int(scalars["fineKernels"])
        self.tk, self.fk = tk, fk
        self.time_of_day = arrays["timeOfDay"].reshape(T, tk)
        self.time_of_day_long = arrays["timeOfDayLong"].reshape(T, tk)
        self.fine_time = arrays["fineTime"].reshape(T, fk)
        self.weekend_fine = arrays["weekendFine"].reshape(T, fk)
        # The profile's matrix as float64, targets x dense width (a competent user keeps it so).
        groups = arrays["profile.groups"]
        width = groups.size
        self.profile = np.ascontiguousarray(arrays["profile.dense"].reshape(width, T).T.astype(np.float64))
        self.groups = groups
        if scalars["hasLogistic"]:
            self.logistic = arrays["logistic.dense"].reshape(int(scalars["logistic.targets"]), arrays["logistic.x"].size)
        # Uses by day: each use's day (the days' runs expanded).
        days = arrays["history.days"]
        starts = arrays["history.starts"]
        uses = arrays["history.targets"].size
        counts = np.diff(np.append(starts, uses))
        self.use_day = np.repeat(days, counts)
        self.use_minute = arrays["history.minutes"]
        self.use_target = arrays["history.targets"]

    def factor(self, name, at):
        return np.exp2(self.s[name + ".anchor"] - at / self.s[name + ".halfLifeSeconds"])

    def csr_row(self, name, row):
        starts = self.a[name + ".starts"]
        dense = np.zeros(self.T)
        if 0 <= row < starts.size - 1:
            lo, hi = starts[row], starts[row + 1]
            columns = self.a[name + ".columns"][lo:hi]
            keep = columns < self.T
            dense[columns[keep]] = self.a[name + ".values"][lo:hi][keep]
        return dense

    def habit_rates(self, day, minute):
        """(every-day log rate, calendar log rate) per target (`HabitRateSignal.rates`)."""
        T = self.T
        first_day = self.s["firstDay"]
        flat = np.full(T, np.log(0.05))
        if first_day < -1e18:
            return flat, flat
        low, high = max(int(first_day), day - LOOKBACK_DAYS), day - 1
        if high < low:
            return flat, flat
        D = high - low + 1
        past = np.arange(low, high + 1)
        cells = calendar_cells(past)
        evidence = np.exp2(-(high - past) / EVIDENCE_HALF_LIFE)
        age = high - past
        stretch = np.where(age >= 14, 0, np.where(age >= 7, 1, np.where(age >= 3, 2, 3)))
        today_cells = calendar_cells(np.array([day]))[0]

        in_range = (self.use_day >= low) & (self.use_day <= high) & (self.use_target < T)
        u_day = self.use_day[in_range] - low
        u_min = self.use_minute[in_range]
        u_tgt = self.use_target[in_range]
        soon = (u_min >= minute) & (u_min < minute + HORIZON)
        active = np.unique(u_tgt[soon])
        evidence_total = evidence.sum()
        inactive = np.log(max(FLOOR_RATE, 0.05 / (evidence_total + 1)))
        every_day = np.full(T, inactive)
        calendar = np.full(T, inactive)
        if active.size == 0:
            return every_day, calendar
        A = active.size
        slot = np.full(T, -1)
        slot[active] = np.arange(A)
        Y = np.zeros((A, D))
        s_idx = slot[u_tgt[soon]]
        np.maximum.at(Y, (s_idx, u_day[soon]), np.exp2(-(u_min[soon] - minute) / SOON_HALF_LIFE))
        E = np.zeros((A, D), dtype=np.int64)
        before = (u_min < minute) & (slot[u_tgt] >= 0)
        E[slot[u_tgt[before]], u_day[before]] = 1
        today = (self.use_day == day) & (self.use_minute < minute) & (self.use_target < T)
        a_today = np.zeros(A, dtype=np.int64)
        used_today = slot[self.use_target[today]]
        a_today[used_today[used_today >= 0]] = 1

        ey = Y * evidence
        total_s = ey.sum(1)
        total_n = evidence_total
        s1 = (ey * E).sum(1)
        n1 = E @ evidence
        overall = (total_s + 0.05) / (total_n + 1)
        base = np.empty((A, 2))
        base[:, 0] = (total_s - s1 + overall) / (total_n - n1 + 1)
        base[:, 1] = (s1 + overall) / (n1 + 1)
        np.clip(base, 1e-6, 1 - 1e-6, out=base)
        base_today = base[np.arange(A), a_today]

        log_posterior = np.empty((A, len(FAMILIES)))
        estimate = np.empty((A, len(FAMILIES)))
        rows = np.arange(A)[:, None]
        for f, (cell_count, prior) in enumerate(FAMILIES):
            coarse = f < CHANGE_FAMILIES
            stretches = 4 if coarse else 1
            cell_a = cells[:, f][None, :] * 2 + E  # (A, D)
            k = cell_a * stretches + (stretch[None, :] if coarse else 0)
            width = cell_count * 2 * stretches
            flat_index = (rows * width + k).ravel()
            S = np.bincount(flat_index, weights=ey.ravel(), minlength=A * width).reshape(A, cell_count * 2, stretches)
            N = np.bincount(flat_index, weights=np.broadcast_to(evidence, (A, D)).ravel(),
                            minlength=A * width).reshape(A, cell_count * 2, stretches)
            p = base[:, np.arange(cell_count * 2) % 2]  # (A, cells x 2)
            alpha, beta = STRENGTH * p, STRENGTH * (1 - p)
            prior_beta = log_beta(alpha, beta)

            def log_likelihood(split):
                total = np.zeros(A)
                for part_s, part_n in ((S[:, :, :split].sum(2), N[:, :, :split].sum(2)),
                                       (S[:, :, split:].sum(2), N[:, :, split:].sum(2))):
                    term = log_beta(part_s + alpha, part_n - part_s + beta) - prior_beta
                    total += np.where(part_n > 0, term, 0).sum(1)
                return total

            no_change = log_likelihood(stretches)
            log_posterior[:, f] = np.log(prior) + no_change
            today_a = today_cells[f] * 2 + a_today
            if not coarse:
                recency = np.zeros(D)
                column = cells[:, f]
                seen = np.zeros(cell_count, dtype=np.int64)
                for i in range(D - 1, -1, -1):
                    recency[i] = np.exp2(-seen[column[i]] / CELL_HALF_LIFE)
                    seen[column[i]] += 1
                match = cell_a == today_a[:, None]
                recent_s = (match * Y * recency).sum(1)
                recent_n = (match * recency).sum(1)
                estimate[:, f] = (recent_s + STRENGTH * base_today) / (recent_n + STRENGTH)
                continue
            S_today = S[np.arange(A), today_a]  # (A, stretches)
            N_today = N[np.arange(A), today_a]
            weights = np.empty((A, stretches))
            rates = np.empty((A, stretches))
            for split in range(stretches):
                weights[:, split] = (np.log(NO_CHANGE_PRIOR) + no_change if split == 0
                                     else np.log((1 - NO_CHANGE_PRIOR) / (stretches - 1)) + log_likelihood(split))
                rates[:, split] = (S_today[:, split:].sum(1) + STRENGTH * base_today) / (N_today[:, split:].sum(1) + STRENGTH)
            w = np.exp(weights - weights.max(1, keepdims=True))
            estimate[:, f] = (w * rates).sum(1) / w.sum(1)
        w = np.exp(log_posterior - log_posterior.max(1, keepdims=True))
        rate = (w * estimate).sum(1) / w.sum(1)
        # The flat rate (each target's share of the uses in the days read times the user's rate around
        # now) against the families' mixture, for targets with enough uses to estimate it.
        use_weight = np.bincount(u_tgt, weights=evidence[u_day], minlength=T)[active]
        use_total = np.bincount(u_tgt, weights=evidence[u_day], minlength=T).sum()
        around_low, around_high = max(0.0, minute - ACTIVITY_BEFORE), min(1440.0, minute + ACTIVITY_AFTER)
        around = evidence[u_day[(u_min >= around_low) & (u_min < around_high)]].sum()
        around_rate = around / max(evidence_total, 1e-300) * HORIZON / max(around_high - around_low, 1) * MEAN_SOON_WEIGHT
        every = estimate[:, 0]
        eligible = (use_weight >= FLAT_MINIMUM_USES) & (use_total > 0)
        if eligible.any():
            flat_rate = np.clip(use_weight / max(use_total, 1e-300) * around_rate, 1e-6, 1 - 1e-6)
            s_flat = np.minimum(total_s, total_n)
            top = log_posterior.max(1)
            timed = np.log(1 - FLAT_PRIOR) + top + np.log(np.exp(log_posterior - top[:, None]).sum(1))
            untimed = np.log(FLAT_PRIOR) + s_flat * np.log(flat_rate) + (total_n - s_flat) * np.log(1 - flat_rate)
            p_flat = np.where(eligible, 1 / (1 + np.exp(timed - untimed)), 0.0)
            every = np.where(eligible, p_flat * flat_rate + (1 - p_flat) * every, every)
            rate = np.where(eligible, p_flat * flat_rate + (1 - p_flat) * rate, rate)
        every_day[active] = np.log(np.maximum(every, FLOOR_RATE))
        calendar[active] = np.log(np.maximum(rate, FLOOR_RATE))
        return every_day, calendar

    def signals_and_scores(self, keep_signals=False):
        s, a, T, F = self.s, self.a, self.T, self.f
        eps = s["frequencyEpsilon"]
        now = s["now"]
        local = now + s["utcOffset"]
        day = int(np.floor(local / 86_400))
        minute = (local - day * 86_400) / 60
        weekend = ((day % 7) + 7 + 3) % 7 >= 5
        angle = 2 * np.pi * minute / 1440
        hour = np.exp(s["timeConcentration"] * (np.cos(angle - 2 * np.pi * (np.arange(24) + 0.5) / 24) - 1))
        hour /= hour.sum()
        kernels = hour[: self.tk]
        fine = np.exp(s["fineTimeConcentration"] * (np.cos(angle - 2 * np.pi * (np.arange(96) + 0.5) / 96) - 1))
        fine_columns = np.nonzero(fine / fine.sum() >= 1e-4)[0]
        fine_weights = fine[fine_columns] / fine[fine_columns].sum()
        fine_keep = fine_columns < self.fk
        fine_columns, fine_weights = fine_columns[fine_keep], fine_weights[fine_keep]

        signal = {}
        # Profile groups.
        x = a["profile.x"]
        X = np.zeros((x.size, 6))  # the profile groups (ProfileGroup order)
        X[np.arange(x.size), self.groups] = x
        groups = self.profile @ X
        weight = s["profile.previousWeight"]
        if weight:
            groups[:, 4] += weight * s["profile.absentTransition"]
            groups[a["profile.previousRows"], 4] += weight * (a["profile.previousValues"] - s["profile.absentTransition"])
        # Logistic.
        if s["hasLogistic"]:
            z = self.logistic @ a["logistic.x"]
            if s["logistic.previousWeight"]:
                z[a["logistic.previousRows"]] += s["logistic.previousWeight"] * a["logistic.previousValues"]
            top = z.max()
            z -= top + np.log(np.exp(z - top).sum())
            position = a["logistic.position"]
            logistic = np.where(position >= 0, z[np.maximum(position, 0)], -np.log(max(T, 1)))
        else:
            logistic = np.zeros(T)

        long_values = a["long"] * self.factor("long", now)
        long_total = long_values.sum()
        signal["frecencyShort"] = np.log(a["short"] * self.factor("short", now) + eps)
        signal["frecencyLong"] = np.log(long_values + eps)
        recent = (self.time_of_day @ kernels) * self.factor("timeOfDay", now)
        usual = (self.time_of_day_long @ kernels) * self.factor("timeOfDayLong", now) * s["habitScale"]
        signal["recentTimeOfDay"] = np.log(recent + eps)
        signal["habitChange"] = np.log((recent + 0.5) / (usual + 0.5))
        near = self.fine_time[:, fine_columns] @ fine_weights
        total = a["fineTotals"] * self.factor("fineTotals", now)
        fk = float(self.fk)
        signal["timeFine"] = np.log((near * self.factor("fineTime", now) + 1 / fk) / (total + 1) * fk)
        signal["frequencyUses"] = a["logUses"]
        signal["frequencyOccasions"] = a["logOccasions"]
        gap = now - s["lastTime"]
        asked_before = gap <= 0
        signal["logAge"] = (np.zeros(T) if asked_before
                            else np.log1p(np.minimum(np.maximum(0, now - a["lastUse"]) / 60, 525_600)) / 10)

        previous = int(s["lastTarget"])
        one_hot = np.zeros((T, self.features))
        if previous >= 0 and gap > 0:
            if gap < s["transitionWindowSeconds"]:
                feature = "transitionRecent"
            elif gap < s["staleTransitionSeconds"]:
                feature = "transitionStale"
            elif gap < s["overnightTransitionSeconds"]:
                feature = "transitionOvernight"
            else:
                feature = None
            if feature:
                counts = self.csr_row("transitions", previous)
                totals = a["transitionTotals"][previous]
                factor = self.factor("transitionTotals", s["lastTime"])
                fallback = (long_values + eps) / (long_total + eps * T)
                signal[feature] = np.log((counts * factor + fallback) / (totals * factor + 1) if totals > 0 else fallback)
            bucket = ("repeat1m" if gap < 60 else "repeat5m" if gap < 300 else "repeat30m" if gap < 1800
                      else "repeat2h" if gap < 7200 else "repeat8h" if gap < 28_800 else "repeatLater")
            one_hot[previous, F[bucket]] = 1
        # Ranks: the 8 most recently used (ties by index), newest first.
        one_hot[:, F["rankOlder"]] = 1
        if gap > 0:
            last = a["lastUse"]
            k = min(8, T)
            candidates = np.argpartition(-last, k - 1)[:k] if T > k else np.arange(T)
            threshold = last[candidates].min()
            pool = np.nonzero(last >= threshold)[0]
            pool = pool[np.isfinite(last[pool])]
            order = pool[np.lexsort((pool, -last[pool]))][:8]
            one_hot[order, F["rankOlder"]] = 0
            one_hot[order, F["rank0"] + np.arange(order.size)] = 1
            if order.size > 1 and gap < s["transitionWindowSeconds"]:
                one_hot[order[1], F["backToPrevious"]] = 1

        # Routine.
        stride = self.fk
        position = (minute / (1440 / stride) - 0.5 + stride) % stride
        lower = int(np.floor(position))
        below, above, share = lower % stride, (lower + 1) % stride, position - np.floor(position)
        own = dict(zip(fine_columns.tolist(), fine_weights.tolist()))
        one_use = (1 - share) * own.get(below, 0.0) + share * own.get(above, 0.0)
        if stride > 0 and fine_columns.size and one_use > 0:
            near_all = (1 - share) * self.fine_time[:, below] + share * self.fine_time[:, above]
            near_weekend = (1 - share) * self.weekend_fine[:, below] + share * self.weekend_fine[:, above]
            every = a["fineTotals"] * self.factor("fineTotals", now)
            of_weekend = a["weekendTotals"] * self.factor("weekendTotals", now)
            near_now = near_all * (self.factor("fineTime", now) / one_use)
            near_weekend_now = near_weekend * (self.factor("weekendFine", now) / one_use)
            day_counts = of_weekend if weekend else np.maximum(0, every - of_weekend)
            here = near_weekend_now if weekend else np.maximum(0, near_now - near_weekend_now)
            p = (every + ROUTINE[0] / T) / (every.sum() + ROUTINE[0])
            p = (day_counts + ROUTINE[1] * p) / (day_counts.sum() + ROUTINE[1])
            p = (here + ROUTINE[2] * p) / (here.sum() + ROUTINE[2])
            if previous >= 0 and previous < T and 0 < gap <= s["followWindow"]:
                followed = self.csr_row("followsWeekend" if weekend else "followsWeekday", previous)
                p = (followed + ROUTINE[3] * p) / (followed.sum() + ROUTINE[3])
            signal["routine"] = np.log(p)
        else:
            signal["routine"] = np.full(T, -np.log(T))

        if s["sharesInstants"]:
            signal["habitRate"] = np.zeros(T)
            signal["calendarLift"] = np.zeros(T)
        else:
            every_day, calendar = self.habit_rates(day, minute)
            signal["habitRate"] = every_day
            signal["calendarLift"] = calendar - every_day

        w = self.weights
        G = [F[name] for name in ("profilePrior", "profileTime", "profileDay", "profileContext", "profilePrevious", "profileAbsence")]
        scores = groups @ w[G] + w[F["logistic"]] * logistic + one_hot @ w
        for name, values in signal.items():
            scores += w[F[name]] * values
        if not keep_signals:
            return scores, None
        matrix = one_hot.copy()
        matrix[:, G] = groups
        matrix[:, F["logistic"]] = logistic
        for name, values in signal.items():
            matrix[:, F[name]] = values
        return scores, matrix

    def suggest(self):
        """The top 4 targets by probability, with their probabilities."""
        scores, _ = self.signals_and_scores()
        k = min(4, self.T)
        top = np.argpartition(-scores, k - 1)[:k] if self.T > k else np.arange(self.T)
        top = top[np.argsort(-scores[top], kind="stable")]
        peak = scores[top[0]]
        normaliser = np.exp(scores - peak).sum()
        return top, np.exp(scores[top] - peak) / normaliser


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: dev/blend-peer.py ENGINE_DIR   (after engine-peer ENGINE_DIR --blend; see dev/blend-peer.sh)")
    directory = sys.argv[1]
    with open(os.path.join(directory, "engine-blend.json")) as handle:
        engine = json.load(handle)
    results = []
    print(f"{'targets':>8} {'default us':>11} {'profile us':>11} {'numpy us':>10} {'default/profile':>16} "
          f"{'numpy/default':>14} {'max rel diff':>13}")
    for shape in engine["shapes"]:
        scalars, features, arrays = load(shape["state"])
        peer = Peer(scalars, features, arrays)
        scores, signals = peer.signals_and_scores(keep_signals=True)
        expected = arrays["logScores"]
        engine_signals = arrays["signals"].reshape(peer.T, len(features))
        difference = np.abs(signals - engine_signals) / np.maximum(1, np.abs(engine_signals))
        worst = np.unravel_index(np.argmax(difference), difference.shape)
        if difference[worst] > 1e-9:
            sys.exit(f"{shape['state']}: signal {features[worst[1]]} of target {worst[0]}: numpy {signals[worst]}, "
                     f"engine {engine_signals[worst]}")
        relative = float(np.max(np.abs(scores - expected) / np.maximum(1, np.abs(expected))))
        if relative > 1e-9:
            sys.exit(f"{shape['state']}: log-scores differ from the engine's by {relative} (relative)")
        top, _ = peer.suggest()
        engine_top = np.argsort(-expected, kind="stable")[: top.size]
        if not np.array_equal(top, engine_top):
            sys.exit(f"{shape['state']}: top 4 {top.tolist()} against the engine's {engine_top.tolist()}")
        calls = shape["iterations"]
        for _ in range(10):
            peer.suggest()
        samples = []
        for _ in range(calls):
            start = time.perf_counter_ns()
            peer.suggest()
            samples.append(time.perf_counter_ns() - start)
        p50, p99 = percentiles(samples)
        entry = {"targets": shape["targets"], "iterations": calls, "numpy_suggest_p50_us": p50, "numpy_suggest_p99_us": p99,
                 "max_relative_difference": relative,
                 "default_over_profile": shape["default_suggest_p50_us"] / shape["profile_suggest_p50_us"],
                 "numpy_over_default": p50 / shape["default_suggest_p50_us"]}
        results.append(entry)
        print(f"{shape['targets']:>8} {shape['default_suggest_p50_us']:>11.1f} {shape['profile_suggest_p50_us']:>11.1f} "
              f"{p50:>10.1f} {entry['default_over_profile']:>16.2f} {entry['numpy_over_default']:>14.2f} {relative:>13.1e}")
    report = {"numpy": np.__version__, "python": sys.version.split()[0], "shapes": results,
              "blas": [f"{k}={v}" for k, v in os.environ.items() if k.endswith("NUM_THREADS")]}
    with open(os.path.join(directory, "python-blend.json"), "w") as handle:
        json.dump(report, handle, indent=2, sort_keys=True)


if __name__ == "__main__":
    main()
