#!/usr/bin/env python3
"""The Python peers of issue 41 (item 2): five next-action models a researcher would
compare the engine with, run on habit worlds and on the logs of docs/RESULTS-TABLE.md.

Peers (each one fitted per user, except the GRU, which is pooled with a user embedding):
  nb       naive Bayes over categorical features: hour, weekday, weekend flag, previous
           target, each context value (Laplace smoothing 1).
  markov   first order Markov chain, previous target -> next, smoothed toward the user's
           target frequencies (weight 1), frequencies alone without a previous target.
  logreg   multinomial logistic regression (scikit-learn, lbfgs, L2 C=1) on one-hot and
           crossed features: hour x day type, hour x weekday, previous x day type, previous x
           gap bucket, previous x gap x day type, weekday, day of month, days to month end,
           n-th weekday of the month, week index mod 2/3/4 x weekday, context values,
           targets already used today.
  lgbm     LightGBM multiclass on the same information as dense columns (time of day,
           weekday, previous target and context as categoricals, gap, calendar, used today).
  gru      PyTorch GRU over the last five actions (target embedding, time of day sin/cos,
           weekday, gap to the next step) plus the question's time of day, weekday, gap and
           context, pooled over all users of one input with a user embedding, softmax over
           the targets the user has used (1 CPU thread, fixed seeds; the number of epochs is
           chosen on 15 % of the examples held out, then trained again on all of them).
  gru-user the same GRU fitted per user (only when named in --peers).

Usage:
  peers.py worlds DIR [DIR ...] [--markdown FILE] [--peers nb,markov,...]
      Trains on every world's donations before trainEnd, answers DIR/questions.jsonl,
      writes DIR/predictions-<peer>.jsonl and prints per habit kind: agreement on
      confident questions, mean regret, mean KL (defined in docs/PEERS.md, as `proactive worlds` scores them);
      DIR/predictions-*.jsonl written by others (the engine) are scored the same way.
  peers.py logs --data DIR [--markdown FILE] [--max-users N] [--peers ...]
      Runs the peers on the logs of docs/RESULTS-TABLE.md found in DIR (the file names its
      commands write: out/results), walking each test file in order (docs/FORMATS.md, evaluation
      contract): hit@1, hit@4, mrr.

Online learning (logs marked online, and live world questions): nb and markov learn every
donation after ranking it; logreg and lgbm are refitted on everything so far at the first
donation of a local day that comes --refit-days (default 7) or more after their last fit;
the GRU is fine-tuned after each UTC day (logs: all users together) on that day's donations
with as many drawn from the past, two passes; a target no training donation named stays
outside its output layer. World questions about past moments are answered by the fit on
donations before trainEnd; live ones in time order under the same policy (logreg and lgbm
refitted at a question --refit-days after their last fit; the GRU fine-tuned once per UTC
day on each world's donations before its first question that day).
"""
from __future__ import annotations

import argparse
import bisect
import copy
import json
import math
import os
import random
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import warnings  # noqa: E402

import numpy as np  # noqa: E402

# scikit-learn warns when lbfgs stops at max_iter (a few per-user fits with many crossed
# features) and when most of a user's targets occur once (aggregated logs); both are expected
# here and would bury the tables.
warnings.filterwarnings("ignore", module="sklearn")

PEERS = ["nb", "markov", "logreg", "lgbm", "gru"]
OPTIONAL = ["gru-user"]  # run only when named in --peers: the GRU fitted per user
GAP_EDGES = [5, 15, 30, 60, 180, 720]  # minutes; bucket i = gap < GAP_EDGES[i]


class InputError(Exception):
    """Bad input: the message names the file, the line and the field."""


# MARK: - Reading

def parse_date(value, path, line, field_name, zone):
    """An ISO 8601 date with offset (or Unix seconds) -> (unix seconds, local datetime)."""
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            moment = datetime.fromtimestamp(float(value), tz=timezone.utc)
        elif isinstance(value, str):
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                raise ValueError("no offset")
        else:
            raise ValueError("neither a string nor a number")
    except ValueError as error:
        raise InputError(f"{path}:{line}: field '{field_name}': not a date with an offset ({error}): {value!r}")
    if zone is not None:
        moment = moment.astimezone(zone)
    return moment.timestamp(), moment


@dataclass
class Event:
    ts: float
    local: datetime
    target: str
    context: dict
    weight: float


def target_key(record, with_parameters):
    key = f"{record['app']}/{record['intent']}"
    params = record.get("parameters")
    if with_parameters and params:
        def canon(v):
            return v.get("id") if isinstance(v, dict) else v
        key += "?" + "&".join(f"{k}={canon(params[k])}" for k in sorted(params))
    return key


def read_donations(path, zones=None, default_zone=None, with_parameters=True):
    """Donation lines (docs/FORMATS.md) -> {user: [Event]} in file order; InputError names a bad line."""
    users = defaultdict(list)
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(f"{path}:{number}: not JSON ({error.msg})")
            if not isinstance(record, dict):
                raise InputError(f"{path}:{number}: not a JSON object")
            for name in ("app", "intent", "date"):
                if name not in record:
                    raise InputError(f"{path}:{number}: field '{name}' is missing")
            user = str(record.get("user", "default"))
            zone = (zones or {}).get(user, default_zone)
            ts, local = parse_date(record["date"], path, number, "date", zone)
            count = record.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise InputError(f"{path}:{number}: field 'count': not an integer >= 1: {count!r}")
            context = record.get("context") or {}
            if not isinstance(context, dict):
                raise InputError(f"{path}:{number}: field 'context': not an object")
            users[user].append(Event(ts, local, target_key(record, with_parameters),
                                     {str(k): str(v) for k, v in context.items()}, float(count)))
    return users


# MARK: - Features

def week_index(local):
    return (local.toordinal() - 1) // 7  # Monday-start weeks since 0001-01-01


def days_in_month(local):
    nxt = (local.replace(day=28) + timedelta(days=4)).replace(day=1)
    return (nxt - timedelta(days=1)).day


@dataclass
class Rec:
    """What every peer may know at one moment: its clock, its context, and the user's
    donations strictly before it."""
    tod: float          # hours since local midnight
    wd: int             # 0 = Monday
    dom: int
    dte: int            # days to the month's end (0 on its last day)
    wk: int
    ctx: dict
    prev: str | None
    gap: float | None   # minutes since the previous donation
    today: tuple        # targets donated earlier the same local day
    last: list          # up to five previous events, oldest first (Event)


class History:
    """One user's donations sorted by time (stable), with the lookups the features need."""

    def __init__(self, events):
        self.events = sorted(events, key=lambda e: e.ts)
        self.ts = [e.ts for e in self.events]
        self.day = [e.local.toordinal() for e in self.events]

    def before(self, ts):
        return bisect.bisect_left(self.ts, ts)

    def rec(self, ts, local, ctx, end=None):
        """Features at instant ts (local clock `local`) from the donations before it
        (only the first `end` events are eligible when given)."""
        n = self.before(ts)
        if end is not None:
            n = min(n, end)
        prev = gap = None
        if n:
            prev = self.events[n - 1].target
            gap = (ts - self.ts[n - 1]) / 60
        day = local.toordinal()
        start = n
        while start > 0 and self.day[start - 1] == day:
            start -= 1
        dim = days_in_month(local)
        return Rec(local.hour + local.minute / 60 + local.second / 3600, local.weekday(), local.day,
                   dim - local.day, week_index(local), ctx, prev, gap,
                   tuple(sorted({e.target for e in self.events[start:n]})),
                   self.events[max(0, n - 5):n])


def gap_bucket(gap):
    if gap is None:
        return "none"
    for i, edge in enumerate(GAP_EDGES):
        if gap < edge:
            return str(i)
    return str(len(GAP_EDGES))


def sparse_features(r: Rec):
    """The crossed one-hot features of the logistic regression."""
    h = int(r.tod)
    dt = "we" if r.wd >= 5 else "wd"
    g = gap_bucket(r.gap)
    p = r.prev or "none"
    nth = (r.dom - 1) // 7 + 1
    f = [f"h={h}", f"dt={dt}", f"h={h}|dt={dt}", f"h={h}|wd={r.wd}", f"wd={r.wd}",
         f"p={p}", f"p={p}|dt={dt}", f"p={p}|g={g}", f"p={p}|g={g}|dt={dt}", f"g={g}",
         f"dom={r.dom}", f"dte={min(r.dte, 7)}", f"nth={nth}|wd={r.wd}",
         f"lastwd={r.dte < 7}|wd={r.wd}", f"w2={r.wk % 2}|wd={r.wd}", f"w3={r.wk % 3}|wd={r.wd}",
         f"w4={r.wk % 4}|wd={r.wd}", f"w2={r.wk % 2}"]
    f += [f"c:{k}={v}" for k, v in r.ctx.items()]
    f += [f"c:{k}={v}|h={h}" for k, v in r.ctx.items()]
    f += [f"today={t}" for t in r.today]
    return f


# MARK: - Peers (one user's model; fit on Recs with labels and weights)

class CountPeer:
    """Base of the count models: targets in first-seen order, ranked by probability then
    frequency; learn(rec, target, w) adds one donation."""
    online_each = True

    def __init__(self):
        self.targets = []
        self.index = {}
        self.freq = []

    def _add_target(self, t):
        if t not in self.index:
            self.index[t] = len(self.targets)
            self.targets.append(t)
            self.freq.append(0.0)
            self._grow()
        return self.index[t]

    def _grow(self):
        pass

    def fit(self, recs, ys, ws):
        for r, y, w in zip(recs, ys, ws):
            self.learn(r, y, w)
        return self


class NaiveBayes(CountPeer):
    name = "nb"

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha
        self.tables = defaultdict(lambda: defaultdict(lambda: np.zeros(0)))
        self.values = defaultdict(set)

    @staticmethod
    def feats(r: Rec):
        f = [("h", int(r.tod)), ("wd", r.wd), ("we", r.wd >= 5), ("p", r.prev)]
        f += [("c:" + k, v) for k, v in r.ctx.items()]
        return f

    def learn(self, r, t, w):
        y = self._add_target(t)
        self.freq[y] += w
        for name, value in self.feats(r):
            row = self.tables[name][value]
            if len(row) < len(self.targets):
                row = np.concatenate([row, np.zeros(len(self.targets) - len(row))])
                self.tables[name][value] = row
            row[y] += w
            self.values[name].add(value)

    def proba(self, r):
        k = len(self.targets)
        freq = np.array(self.freq)
        logp = np.log(freq + self.alpha) - math.log(freq.sum() + self.alpha * k)
        for name, value in self.feats(r):
            table = self.tables.get(name)
            if table is None:
                continue
            row = table.get(value) if value in table else np.zeros(0)
            counts = np.zeros(k)
            counts[:len(row)] = row
            m = len(self.values[name]) + 1  # values seen, plus one for an unseen one
            logp += np.log(counts + self.alpha) - np.log(freq + self.alpha * m)
        logp -= logp.max()
        p = np.exp(logp)
        return p / p.sum()


class Markov(CountPeer):
    name = "markov"

    def __init__(self, strength=1.0):
        super().__init__()
        self.strength = strength
        self.trans = defaultdict(Counter)

    def learn(self, r, t, w):
        y = self._add_target(t)
        self.freq[y] += w
        if r.prev is not None:
            self.trans[r.prev][y] += w

    def proba(self, r):
        freq = np.array(self.freq) + 0.5
        base = freq / freq.sum()
        row = self.trans.get(r.prev)
        if not row:
            return base
        counts = np.zeros(len(self.targets))
        for y, c in row.items():
            counts[y] = c
        return (counts + self.strength * base) / (counts.sum() + self.strength)


class RefitPeer:
    """Base of the batch models: fit on everything given, predict a batch of Recs."""
    online_each = False

    def fit(self, recs, ys, ws):
        freq = Counter()
        for y, w in zip(ys, ws):
            freq[y] += w
        self.targets = sorted(freq, key=lambda t: -freq[t])
        self.index = {t: i for i, t in enumerate(self.targets)}
        self.prior = np.array([freq[t] for t in self.targets], dtype=float)
        self.prior /= self.prior.sum()
        if len(self.targets) > 1:
            self._fit(recs, np.array([self.index[y] for y in ys]), np.asarray(ws, dtype=float))
        return self

    def proba_batch(self, recs):
        if len(self.targets) == 1:
            return np.ones((len(recs), 1))
        return self._proba(recs)


class LogReg(RefitPeer):
    name = "logreg"

    def _matrix(self, recs, grow):
        from scipy.sparse import csr_matrix
        rows, cols = [], []
        for i, r in enumerate(recs):
            for f in sparse_features(r):
                j = self.vocab.get(f)
                if j is None and grow:
                    j = self.vocab[f] = len(self.vocab)
                if j is not None:
                    rows.append(i)
                    cols.append(j)
        return csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(recs), len(self.vocab)))

    def _fit(self, recs, y, w):
        from sklearn.linear_model import LogisticRegression
        self.vocab = {}
        x = self._matrix(recs, True)
        self.model = LogisticRegression(C=1.0, max_iter=300, tol=1e-4)
        self.model.fit(x, y, sample_weight=w / w.mean())

    def _proba(self, recs):
        p = np.zeros((len(recs), len(self.targets)))
        p[:, self.model.classes_] = self.model.predict_proba(self._matrix(recs, False))
        return p


class LGBM(RefitPeer):
    name = "lgbm"

    def _matrix(self, recs):
        k = len(self.targets)
        cols = 11 + len(self.ctx_keys) + k
        x = np.full((len(recs), cols), np.nan)
        for i, r in enumerate(recs):
            x[i, 0] = r.tod
            x[i, 1] = r.wd
            x[i, 2] = self.index.get(r.prev, k) if r.prev is not None else np.nan
            x[i, 3] = math.log1p(r.gap) if r.gap is not None else np.nan
            x[i, 4] = r.dom
            x[i, 5] = r.dte
            x[i, 6] = (r.dom - 1) // 7
            x[i, 7] = r.wk % 2
            x[i, 8] = r.wk % 3
            x[i, 9] = r.wk % 4
            x[i, 10] = r.wd >= 5
            for j, key in enumerate(self.ctx_keys):
                v = r.ctx.get(key)
                if v is not None:
                    x[i, 11 + j] = self.ctx_values[j].get(v, np.nan)
            x[i, 11 + len(self.ctx_keys):] = 0
            for t in r.today:
                if t in self.index:
                    x[i, 11 + len(self.ctx_keys) + self.index[t]] = 1
        return x

    def _fit(self, recs, y, w):
        import lightgbm as lgb
        self.ctx_keys = sorted({k for r in recs for k in r.ctx})
        self.ctx_values = [{v: i for i, v in enumerate(sorted({r.ctx[k] for r in recs if k in r.ctx}))}
                           for k in self.ctx_keys]
        x = self._matrix(recs)
        categorical = [1, 2] + [11 + j for j in range(len(self.ctx_keys))]
        data = lgb.Dataset(x, label=y, weight=w / w.mean(), categorical_feature=categorical,
                           free_raw_data=True, params={"verbose": -1, "max_bin": 63})
        params = {"objective": "multiclass", "num_class": len(self.targets), "learning_rate": 0.1,
                  "num_leaves": 15, "min_data_in_leaf": 5, "min_sum_hessian_in_leaf": 1e-3,
                  "lambda_l2": 1.0, "num_threads": 1, "verbose": -1, "seed": 7,
                  "deterministic": True, "force_row_wise": True, "cat_smooth": 5, "min_data_per_group": 5}
        self.model = lgb.train(params, data, num_boost_round=self.rounds)

    rounds = 60

    def _proba(self, recs):
        return self.model.predict(self._matrix(recs))


# MARK: - GRU (pooled over the users of one input, with a user embedding)

class GRUPeer:
    name = "gru"

    def __init__(self, seed=7, threads=1, max_steps=3000, batch=None):
        self.seed, self.threads, self.max_steps, self.batch = seed, threads, max_steps, batch

    def _tensors(self, recs, users):
        import torch
        n = len(recs)
        seq = np.zeros((n, 5), dtype=np.int64)
        step = np.zeros((n, 5, 10), dtype=np.float32)
        query = np.zeros((n, 11), dtype=np.float32)
        ctx = np.zeros((n, 4), dtype=np.int64)
        for i, r in enumerate(recs):
            last = r.last
            off = 5 - len(last)
            for j, e in enumerate(last):
                seq[i, off + j] = self.vocab.get(e.target, 0)
                tod = e.local.hour + e.local.minute / 60
                step[i, off + j, 0] = math.sin(2 * math.pi * tod / 24)
                step[i, off + j, 1] = math.cos(2 * math.pi * tod / 24)
                step[i, off + j, 2 + e.local.weekday()] = 1
                nxt = last[j + 1].ts if j + 1 < len(last) else None
                gap = (nxt - e.ts) / 60 if nxt is not None else (r.gap or 0)
                step[i, off + j, 9] = math.log1p(max(gap, 0)) / 8
            query[i, 0] = math.sin(2 * math.pi * r.tod / 24)
            query[i, 1] = math.cos(2 * math.pi * r.tod / 24)
            query[i, 2 + r.wd] = 1
            query[i, 9] = math.log1p(r.gap) / 8 if r.gap is not None else 2
            query[i, 10] = r.gap is None
            for j, (k, v) in enumerate(sorted(r.ctx.items())[:4]):
                ctx[i, j] = self.ctx_vocab.get(f"{k}={v}", 0)
        uid = np.array([self.users.get(u, 0) for u in users], dtype=np.int64)
        return [torch.from_numpy(a) for a in (seq, step, query, ctx, uid)]

    def fit(self, recs, ys, ws, users, user_targets):
        import torch
        from torch import nn
        torch.manual_seed(self.seed)
        np.random.seed(self.seed)
        torch.set_num_threads(self.threads)
        targets = sorted(set(ys))
        self.targets = targets
        self.vocab = {t: i + 1 for i, t in enumerate(targets)}
        self.users = {u: i + 1 for i, u in enumerate(sorted(set(users)))}
        self.ctx_vocab = {}
        for r in recs:
            for k, v in r.ctx.items():
                self.ctx_vocab.setdefault(f"{k}={v}", len(self.ctx_vocab) + 1)
        self.user_targets = {u: [self.vocab[t] - 1 for t in ts if t in self.vocab] for u, ts in user_targets.items()}
        v = len(targets) + 1

        class Net(nn.Module):
            def __init__(s):
                super().__init__()
                s.emb = nn.Embedding(v, 32, padding_idx=0)
                s.gru = nn.GRU(32 + 10, 64, batch_first=True)
                s.user = nn.Embedding(len(self.users) + 1, 16)
                s.ctx = nn.Embedding(len(self.ctx_vocab) + 1, 8, padding_idx=0)
                s.head = nn.Sequential(nn.Linear(64 + 16 + 11 + 8, 128), nn.ReLU(), nn.Dropout(0.1),
                                       nn.Linear(128, v - 1))

            def forward(s, seq, step, query, ctx, uid):
                _, h = s.gru(torch.cat([s.emb(seq), step], dim=2))
                z = torch.cat([h[-1], s.user(uid), query, s.ctx(ctx).sum(1)], dim=1)
                return s.head(z)

        self.Net = Net
        self.data = list(self._tensors(recs, users)) + [
            torch.tensor([self.vocab[t] - 1 for t in ys]), torch.tensor(np.asarray(ws, dtype=np.float32))]
        self.mean_weight = float(np.mean(ws))
        n = len(ys)
        if self.batch is None:  # small logs need more, smaller steps
            self.batch = min(128, max(32, n // 64))
        # Early stopping: 15 % of each user's examples (at random: a chronological holdout chose
        # far too few epochs on the drifting Android log) validate; the epoch
        # count with the lowest validation loss (patience 4, at most 40 epochs and max_steps
        # steps) is then trained again from the same seed on all examples.
        held = np.zeros(n, dtype=bool)
        positions = defaultdict(list)
        for i, u in enumerate(users):
            positions[u].append(i)
        pick = np.random.default_rng(self.seed)
        for idx in positions.values():
            held[pick.choice(idx, len(idx) * 15 // 100, replace=False)] = True
        fit_idx, val_idx = np.flatnonzero(~held), np.flatnonzero(held)
        self.epochs = 15
        if len(val_idx) >= 20 and len(fit_idx) >= 50:
            self._train(fit_idx, max_epochs=40, val_idx=val_idx)
        self._train(np.arange(n), max_epochs=self.epochs)
        return self

    def _train(self, idx, max_epochs, val_idx=None):
        import torch
        from torch import nn
        torch.manual_seed(self.seed)
        self.net = self.Net()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=3e-3, weight_decay=1e-5)
        generator = torch.Generator().manual_seed(self.seed)
        per_epoch = math.ceil(len(idx) / self.batch)
        max_epochs = max(1, min(max_epochs, self.max_steps // per_epoch))
        best, best_epoch, idx = float("inf"), 1, torch.from_numpy(idx)
        for epoch in range(1, max_epochs + 1):
            self._steps(idx[torch.randperm(len(idx), generator=generator)])
            if val_idx is not None:
                loss = self._loss(torch.from_numpy(val_idx))
                if loss < best - 1e-4:
                    best, best_epoch = loss, epoch
                elif epoch - best_epoch >= 4:
                    break
        if val_idx is not None:
            self.epochs = best_epoch
        self.net.eval()

    def _steps(self, order):
        from torch import nn
        self.net.train()
        seq, step, query, ctx, uid, y, w = self.data
        for s in range(0, len(order), self.batch):
            i = order[s:s + self.batch]
            logits = self.net(seq[i], step[i], query[i], ctx[i], uid[i])
            loss = (nn.functional.cross_entropy(logits, y[i], reduction="none") * w[i]).sum() / (
                self.mean_weight * len(i))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        self.net.eval()

    def _loss(self, idx):
        import torch
        from torch import nn
        seq, step, query, ctx, uid, y, w = self.data
        with torch.no_grad():
            logits = self.net(seq[idx], step[idx], query[idx], ctx[idx], uid[idx])
            return float((nn.functional.cross_entropy(logits, y[idx], reduction="none") * w[idx]).sum() / w[idx].sum())

    fine_tune_lr = 3e-4
    static = False  # --gru-static: never learns online

    def learn(self, recs, ys, ws, users, epochs=2):
        """Online: appends the examples whose target the model knows and trains `epochs`
        passes over as many examples as they are, drawn from everything so far."""
        import torch
        keep = [i for i, t in enumerate(ys) if t in self.vocab]
        if not keep or self.static:
            return
        for i in keep:
            known = self.user_targets.setdefault(users[i], [])
            if self.vocab[ys[i]] - 1 not in known:
                known.append(self.vocab[ys[i]] - 1)
        new = list(self._tensors([recs[i] for i in keep], [users[i] for i in keep])) + [
            torch.tensor([self.vocab[ys[i]] - 1 for i in keep]), torch.tensor([float(ws[i]) for i in keep])]
        self.data = [torch.cat([a, b]) for a, b in zip(self.data, new)]
        n = len(self.data[0])
        for group in self.optimizer.param_groups:
            group["lr"] = self.fine_tune_lr
        generator = torch.Generator().manual_seed(self.seed + n)
        recent = torch.arange(n - len(keep), n)
        for _ in range(epochs):  # the new examples, each with as many drawn from the past
            past = torch.randint(0, n, (len(keep),), generator=generator)
            both = torch.cat([recent, past])
            self._steps(both[torch.randperm(len(both), generator=generator)])

    def proba_batch(self, recs, user):
        """Probabilities over the user's known targets (list of target keys, array)."""
        import torch
        known = self.user_targets.get(user, [])
        if not known or not recs:
            return known, np.zeros((len(recs), 0))
        with torch.no_grad():
            logits = self.net(*self._tensors(recs, [user] * len(recs)))[:, known]
            p = torch.softmax(logits, dim=1).numpy()
        return [self.targets[i] for i in known], p


def fit_grus(per_user, pooled):
    """{user: (examples, targets)} -> {user: GRUPeer}: one model for all users (pooled, with
    a user embedding) or one per user (`gru-user`)."""
    def fit(users):
        recs, ys, ws, us = [], [], [], []
        for user in users:
            for r, y, wt in per_user[user][0]:
                recs.append(r)
                ys.append(y)
                ws.append(wt)
                us.append(user)
        return GRUPeer(max_steps=3000 if pooled else 600).fit(recs, ys, ws, us, {u: per_user[u][1] for u in users})
    users = [u for u in sorted(per_user) if per_user[u][0]]
    if pooled:
        model = fit(users) if users else None
        return {u: model for u in users}
    return {u: fit([u]) for u in users}


def make_peer(name):
    return {"nb": NaiveBayes, "markov": Markov, "logreg": LogReg, "lgbm": LGBM}[name]()


# MARK: - Worlds

def read_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    out.append((number, json.loads(line)))
                except json.JSONDecodeError as error:
                    raise InputError(f"{path}:{number}: not JSON ({error.msg})")
    return out


def require(record, name, path, number):
    if name not in record:
        raise InputError(f"{path}:{number}: field '{name}' is missing")
    return record[name]


def load_worlds(directory):
    wpath = os.path.join(directory, "worlds.jsonl")
    worlds = {}
    for number, w in read_jsonl(wpath):
        user = require(w, "user", wpath, number)
        zone_name = require(w, "timezone", wpath, number)
        try:
            zone = ZoneInfo(zone_name)
        except Exception:
            raise InputError(f"{wpath}:{number}: field 'timezone': unknown time zone {zone_name!r}")
        train_end, _ = parse_date(require(w, "trainEnd", wpath, number), wpath, number, "trainEnd", zone)
        worlds[user] = {"zone": zone, "trainEnd": train_end,
                        "trainEnd_day": datetime.fromtimestamp(train_end, tz=zone).toordinal()}
    donations = read_donations(os.path.join(directory, "donations.jsonl"),
                               zones={u: w["zone"] for u, w in worlds.items()}, with_parameters=False)
    qpath = os.path.join(directory, "questions.jsonl")
    questions = []
    for number, q in read_jsonl(qpath):
        user = require(q, "user", qpath, number)
        if user not in worlds:
            raise InputError(f"{qpath}:{number}: field 'user': {user!r} is not in worlds.jsonl")
        ts, local = parse_date(require(q, "at", qpath, number), qpath, number, "at", worlds[user]["zone"])
        oracle = require(q, "oracle", qpath, number)
        if not isinstance(oracle, dict) or not isinstance(oracle.get("next"), dict):
            raise InputError(f"{qpath}:{number}: field 'oracle.next': missing or not an object")
        questions.append({"id": require(q, "id", qpath, number), "user": user, "ts": ts, "local": local,
                          "context": {str(k): str(v) for k, v in (q.get("context") or {}).items()},
                          "mode": require(q, "mode", qpath, number), "kind": require(q, "kind", qpath, number),
                          "moment": str(q.get("moment", "")),
                          "confident": bool(q.get("confident")), "oracle": oracle["next"]})
    return worlds, donations, questions


def top_scores(targets, p, limit=40):
    order = np.argsort(-p, kind="stable")[:limit]
    total = float(p[order].sum()) or 1.0
    return {targets[i]: round(float(p[i]) / total, 6) for i in order if p[i] > 0}


def shifted_examples(h, lo, hi, shifts, user):
    """Training examples for questions asked at a moment about the next donation within the
    hour: donation i is the answer at its own instant and at shifts - 1 moments drawn
    uniformly in the hour before it (never before the previous donation), each with the
    features of that moment and weight / shifts (seeded by user and position)."""
    out = []
    for i in range(lo, hi):
        e = h.events[i]
        out.append((h.rec(e.ts, e.local, e.context, end=i), e.target, e.weight / shifts))
        if shifts > 1:
            rng = random.Random(f"{user}/{i}")
            room = min(3600.0, e.ts - h.ts[i - 1]) if i > 0 else 3600.0
            for _ in range(shifts - 1):
                ts = e.ts - rng.uniform(0, room)
                local = datetime.fromtimestamp(ts, tz=e.local.tzinfo)
                out.append((h.rec(ts, local, e.context, end=i), e.target, e.weight / shifts))
    return out


def run_worlds_peer(name, worlds, donations, questions, shifts, refit_days):
    """Answers every question with peer `name`; returns ({id: scores}, seconds).

    Past questions are answered by the fit on donations before trainEnd. Live questions
    (in time order) by a model that learns online from the donations before each `at`:
    nb and markov every donation, logreg and lgbm refitted from scratch at a question
    `refit_days` or more local days after their last fit, the GRU fine-tuned once per UTC
    day on the donations before that day's first question of the world."""
    start = time.process_time()
    answers = {}
    by_user = defaultdict(list)
    for q in questions:
        by_user[q["user"]].append(q)
    for qs in by_user.values():
        qs.sort(key=lambda q: q["ts"])
    histories = {u: History(donations.get(u, [])) for u in worlds}

    def answer(q, targets, row):
        answers[q["id"]] = top_scores(targets, row) if len(targets) else {}

    if name.startswith("gru"):
        per_user, ends = {}, {}
        for user, w in worlds.items():
            h = histories[user]
            ends[user] = h.before(w["trainEnd"])
            per_user[user] = (shifted_examples(h, 0, ends[user], shifts, user),
                              sorted({e.target for e in h.events[:ends[user]]}))
        models = fit_grus(per_user, pooled=(name == "gru"))
        for user, qs in by_user.items():
            past = [q for q in qs if q["mode"] == "past"]
            if user in models and past:
                targets, p = models[user].proba_batch(
                    [histories[user].rec(q["ts"], q["local"], q["context"]) for q in past], user)
                for q, row in zip(past, p):
                    answer(q, targets, row)
        models = copy.deepcopy(models)  # the live walk fine-tunes
        live = sorted((q for q in questions if q["mode"] != "past" and q["user"] in models),
                      key=lambda q: (q["ts"], q["id"]))
        learned = dict(ends)
        i = 0
        while i < len(live):
            day = int(live[i]["ts"] // 86400)
            j = i
            while j < len(live) and int(live[j]["ts"] // 86400) == day:
                j += 1
            block = live[i:j]
            first = {}
            for q in block:
                first.setdefault(q["user"], q["ts"])
            by_model = defaultdict(list)
            for user, ts in first.items():
                h = histories[user]
                upto = h.before(ts)
                for r, y, wt in shifted_examples(h, learned[user], upto, shifts, user):
                    by_model[id(models[user])].append((r, y, wt, user))
                learned[user] = max(learned[user], upto)
            for items in by_model.values():
                models[items[0][3]].learn([x[0] for x in items], [x[1] for x in items],
                                          [x[2] for x in items], [x[3] for x in items])
            for q in block:
                targets, p = models[q["user"]].proba_batch(
                    [histories[q["user"]].rec(q["ts"], q["local"], q["context"])], q["user"])
                answer(q, targets, p[0])
            i = j
        for q in questions:
            answers.setdefault(q["id"], {})
        return answers, time.process_time() - start
    for user, w in worlds.items():
        h = histories[user]
        end = h.before(w["trainEnd"])
        examples = shifted_examples(h, 0, end, shifts, user)
        qs = by_user.get(user, [])
        if not examples:
            for q in qs:
                answers[q["id"]] = {}
            continue
        peer = make_peer(name).fit([x[0] for x in examples], [x[1] for x in examples], [x[2] for x in examples])
        past = [q for q in qs if q["mode"] == "past"]
        live = [q for q in qs if q["mode"] != "past"]
        recs = {q["id"]: h.rec(q["ts"], q["local"], q["context"]) for q in qs}
        if peer.online_each:
            for q in past:
                answer(q, peer.targets, peer.proba(recs[q["id"]]))
            learned = end
            for q in live:  # learns online from donations in [trainEnd, at)
                upto = h.before(q["ts"])
                for r, y, wt in shifted_examples(h, learned, upto, shifts, user):
                    peer.learn(r, y, wt)
                learned = max(learned, upto)
                answer(q, peer.targets, peer.proba(recs[q["id"]]))
            continue
        if past:
            for q, row in zip(past, peer.proba_batch([recs[q["id"]] for q in past])):
                answer(q, peer.targets, row)
        fit_day = w["trainEnd_day"]
        for q in live:
            day = q["local"].toordinal()
            upto = h.before(q["ts"])
            if day - fit_day >= refit_days and upto > end:
                examples += shifted_examples(h, end, upto, shifts, user)
                end = upto
                peer = make_peer(name).fit([x[0] for x in examples], [x[1] for x in examples],
                                           [x[2] for x in examples])
                fit_day = day
            answer(q, peer.targets, peer.proba_batch([recs[q["id"]]])[0])
    return answers, time.process_time() - start


def score_worlds(questions, answers, path):
    """Per kind: [confident n, agreements, regret sum, kl sum, n]; overall under 'all'."""
    stats = defaultdict(lambda: [0, 0, 0.0, 0.0, 0])
    missing = 0
    for q in questions:
        if not q["oracle"]:  # no donation can come (as `proactive worlds`, not scored)
            continue
        scores = answers.get(q["id"])
        if scores is None:
            missing += 1
            scores = {}
        oracle = q["oracle"]
        otop = max(oracle, key=lambda t: oracle[t]) if oracle else None
        mfirst = max(scores, key=lambda t: scores[t]) if scores else None
        regret = (oracle[otop] - oracle.get(mfirst, 0.0)) if otop is not None else 0.0
        union = set(oracle) | set(scores)
        total = sum(max(float(scores.get(t, 0.0)), 0.0) for t in union)
        kl = 0.0
        for t, pt in oracle.items():
            if pt > 0:
                qt = (max(float(scores.get(t, 0.0)), 0.0) / total) if total > 0 else 0.0
                kl += pt * math.log(pt / max(qt, 1e-4))
        for kind in (q["kind"], f"({q['mode']}-{q['moment']})", "all"):
            s = stats[kind]
            if q["confident"]:
                s[0] += 1
                s[1] += int(mfirst is not None and mfirst == otop)
            s[2] += regret
            s[3] += kl
            s[4] += 1
    if missing:
        print(f"peers.py: {path}: {missing} questions without an answer (scored as empty)", file=sys.stderr)
    return stats


def read_predictions(path):
    answers = {}
    for number, p in read_jsonl(path):
        scores = require(p, "scores", path, number)
        if not isinstance(scores, dict):
            raise InputError(f"{path}:{number}: field 'scores': not an object")
        answers[require(p, "id", path, number)] = {str(k): float(v) for k, v in scores.items()}
    return answers


def worlds_tables(directory, results, order):
    keys = {k for _, (stats, _) in results.items() for k in stats if k != "all"}
    kinds = sorted(k for k in keys if not k.startswith("(")) + sorted(k for k in keys if k.startswith("(")) + ["all"]
    any_stats = next(iter(results.values()))[0]
    lines = [f"### {directory}", ""]
    for title, fn in (("agreement on confident questions",
                       lambda s: f"{s[1] / s[0]:.3f}" if s[0] else "-"),
                      ("mean regret", lambda s: f"{s[2] / s[4]:.3f}" if s[4] else "-"),
                      ("mean KL", lambda s: f"{s[3] / s[4]:.3f}" if s[4] else "-")):
        lines += [f"{title}:", "", "| kind | questions (confident) | " + " | ".join(order) + " |",
                  "|---|---:|" + "---:|" * len(order)]
        for kind in kinds:
            s0 = any_stats.get(kind, [0, 0, 0, 0, 0])
            cells = [fn(results[name][0].get(kind, [0, 0, 0.0, 0.0, 0])) for name in order]
            lines.append(f"| {kind} | {s0[4]} ({s0[0]}) | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["train + predict CPU time of this process, s: " + ", ".join(
        f"{name} {results[name][1]:.1f}" if results[name][1] is not None else f"{name} (given)" for name in order), ""]
    return "\n".join(lines)


def cmd_worlds(args):
    out = []
    for directory in args.dirs:
        worlds, donations, questions = load_worlds(directory)
        print(f"{directory}: {len(worlds)} worlds, {sum(map(len, donations.values()))} donations, "
              f"{len(questions)} questions", file=sys.stderr)
        results = {}
        for name in ([] if args.score_only else args.peers):
            answers, seconds = run_worlds_peer(name, worlds, donations, questions, args.shifts, args.refit_days)
            path = os.path.join(directory, f"predictions-{name}.jsonl")
            tmp = path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as handle:
                for q in questions:
                    handle.write(json.dumps({"id": q["id"], "scores": answers.get(q["id"], {})}) + "\n")
            os.replace(tmp, path)
            results[name] = (score_worlds(questions, answers, path), seconds)
            print(f"  {name}: {seconds:.1f} s", file=sys.stderr)
        for entry in sorted(os.listdir(directory)):
            if entry.startswith("predictions-") and entry.endswith(".jsonl"):
                name = entry[len("predictions-"):-len(".jsonl")]
                if name not in results and (args.score_only or name not in PEERS + OPTIONAL):  # the engine's
                    path = os.path.join(directory, entry)
                    results[name] = (score_worlds(questions, read_predictions(path), path), None)
        order = [n for n in results if n not in args.peers] + [n for n in args.peers if n in results]
        table = worlds_tables(directory, results, order)
        print(table)
        out.append(table)
    return out


# MARK: - Logs (docs/RESULTS-TABLE.md)

LOGS = [  # name, train file, test file, online, time zone
    ("android-online", "android-train.jsonl", "android-test.jsonl", True, "America/New_York"),
    ("android-static", "android-train.jsonl", "android-test.jsonl", False, "America/New_York"),
    ("knowledgec-10.13 (online)", "knowledgec-10.13-train.jsonl", "knowledgec-10.13-test.jsonl", True, None),
    ("knowledgec-10.14 (online)", "knowledgec-10.14-train.jsonl", "knowledgec-10.14-test.jsonl", True, None),
    ("sim-sequential (online)", "sim-train.jsonl", "sim-test.jsonl", True, None),
    ("sim-aggregated", "agg-train.jsonl", "agg-test.jsonl", False, None),
    ("sim-aggregated-rows", "agg-rows-train.jsonl", "agg-rows-test.jsonl", False, None),
    ("sim-aggregated-week", "week-train.jsonl", "week-test.jsonl", False, None),
    ("sim-aggregated-week-rows", "week-rows-train.jsonl", "week-rows-test.jsonl", False, None),
]


def rank_of(targets, p, truth, prior_order):
    """1-based rank of truth among targets by p (ties: the order of `targets`); 0 if absent."""
    if truth not in prior_order:
        return 0
    i = prior_order[truth]
    if i >= len(p):
        return 0
    return 1 + int(np.sum(p > p[i])) + int(np.sum(p[:i] == p[i]))


def instant_runs(events):
    runs, start = [], 0
    for i in range(1, len(events) + 1):
        if i == len(events) or events[i].ts != events[start].ts:
            runs.append((start, i))
            start = i
    return runs


def eval_log_user(name, train, test, online, refit_days, gru=None, user=None):
    """Ranks of the user's test donations (in log order) for peer `name`."""
    hist = History(train + test)
    # test events are walked in time order (log order within a user: sorted by date)
    order = sorted(range(len(test)), key=lambda i: test[i].ts)
    walk = [test[i] for i in order]
    ranks = [0] * len(test)
    recs = [hist.rec(e.ts, e.local, e.context) for e in walk]
    if name.startswith("gru"):
        if gru is None:
            return ranks
        targets, p = gru.proba_batch(recs, user)
        index = {t: i for i, t in enumerate(targets)}
        for k, e in enumerate(walk):
            ranks[order[k]] = rank_of(targets, p[k], e.target, index) if len(targets) else 0
        return ranks
    own = History(train)  # training rows' features come from training rows only
    train_recs = [own.rec(e.ts, e.local, e.context, end=i) for i, e in enumerate(own.events)]
    ys = [e.target for e in own.events]
    ws = [e.weight for e in own.events]
    peer = make_peer(name)
    if ys:
        peer.fit(train_recs, ys, ws)
    fitted = bool(ys)
    if peer.online_each:
        for a, b in instant_runs(walk):
            if fitted:
                for k in range(a, b):
                    index = peer.index
                    ranks[order[k]] = rank_of(peer.targets, peer.proba(recs[k]), walk[k].target, index)
            if online:
                for k in range(a, b):
                    peer.learn(recs[k], walk[k].target, walk[k].weight)
                fitted = True
        return ranks
    # batch peers: blocks between refits
    last_fit_day = max((e.local.toordinal() for e in train), default=None)
    k = 0
    while k < len(walk):
        j = k + 1
        if online:
            while j < len(walk):
                day = walk[j].local.toordinal()
                if walk[j].ts != walk[j - 1].ts and (last_fit_day is None or day - last_fit_day >= refit_days) \
                        and day != walk[j - 1].local.toordinal():
                    break
                j += 1
        else:
            j = len(walk)
        if fitted:
            p = peer.proba_batch(recs[k:j])
            index = peer.index
            for m in range(k, j):
                ranks[order[m]] = rank_of(peer.targets, p[m - k], walk[m].target, index)
        if online and j < len(walk):
            ys += [e.target for e in walk[k:j]]
            ws += [e.weight for e in walk[k:j]]
            train_recs += recs[k:j]
            peer = make_peer(name).fit(train_recs, ys, ws)
            fitted = True
            last_fit_day = walk[j].local.toordinal()
        k = j
    return ranks


def make_logs(args):
    """Runs the commands of docs/RESULTS-TABLE.md (## Commands) that write the logs
    (convert, split, simulate, drop-counts; not evaluate) with --proactive BIN, writing into
    --data instead of out/results; a command whose outputs all exist is skipped."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    table = os.path.join(root, "docs/RESULTS-TABLE.md")
    with open(table, encoding="utf-8") as handle:
        text = handle.read()
    if "## Commands" not in text:
        raise InputError(f"{table}: no '## Commands' section")
    block = text.split("## Commands", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    os.makedirs(args.data, exist_ok=True)
    import shlex
    import subprocess
    for line in block.strip().split("\n"):
        words = shlex.split(line)
        if words[:2] in (["proactive", "convert"], ["proactive", "split"], ["proactive", "simulate"]):
            words[0] = args.proactive
        elif words[:2] == ["python3", "scripts/drop-counts.py"]:
            words[0] = sys.executable
            words[1] = os.path.join(root, "scripts", "drop-counts.py")
        else:
            continue
        words = [w.replace("out/results", args.data) if w.startswith("out/results") else
                 (os.path.join(root, w) if w.startswith("datasets/") else w) for w in words]
        outputs = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-o", "--train", "--test")]
        if words[0] == sys.executable:
            outputs = [words[-1]]
        if outputs and all(os.path.exists(o) for o in outputs):
            continue
        print("+ " + " ".join(shlex.quote(w) for w in words), file=sys.stderr)
        done = subprocess.run(words, stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            raise InputError(f"{table}: command failed ({done.returncode}): {line}")


def walk_gru_online(models, train, test, users):
    """Prequential walk of the GRU(s) over the test logs of `users`, all users together by
    UTC day: each day's donations are ranked with the weights of the day before, then the
    model learns them (`GRUPeer.learn`). Returns {user: ranks in test-log order}."""
    ranks, items = {}, []
    for u in users:
        hist = History(train.get(u, []) + test[u])
        ranks[u] = [0] * len(test[u])
        for k, e in enumerate(test[u]):
            items.append((e.ts, u, k, hist.rec(e.ts, e.local, e.context)))
    items.sort(key=lambda item: (item[0], item[1], item[2]))
    start = 0
    while start < len(items):
        day = int(items[start][0] // 86400)
        end = start
        while end < len(items) and int(items[end][0] // 86400) == day:
            end += 1
        block = items[start:end]
        per_user = defaultdict(list)
        for item in block:
            per_user[item[1]].append(item)
        for u, its in per_user.items():
            model = models.get(u)
            if model is None:
                continue
            targets, p = model.proba_batch([it[3] for it in its], u)
            index = {t: i for i, t in enumerate(targets)}
            for row, (_, _, k, _) in zip(p, its):
                ranks[u][k] = rank_of(targets, row, test[u][k].target, index) if len(targets) else 0
        by_model = defaultdict(list)
        for item in block:
            if item[1] in models:
                by_model[id(models[item[1]])].append(item)
        for its in by_model.values():
            model = models[its[0][1]]
            model.learn([it[3] for it in its], [test[it[1]][it[2]].target for it in its],
                        [test[it[1]][it[2]].weight for it in its], [it[1] for it in its])
        start = end
    return ranks


BASELINES = ["mfu", "mru", "markov", "hour-of-day", "frecency"]


def engine_figures(args, label, train_path, test_path, online, zone_name):
    """`proactive evaluate --compare` on the same files: the default model's hit@1 / hit@4 /
    mrr and, per metric, the best of the baselines (docs/RESULTS-TABLE.md's definition)."""
    import subprocess
    report = os.path.join(args.data, "peers-engine-" + label.split(" ")[0] + ".json")
    command = [args.proactive, "evaluate", "--train", train_path, "--test", test_path, "--compare", "--quiet",
               "--report", report] + (["--online"] if online else []) + (["--timezone", zone_name] if zone_name else [])
    print("+ " + " ".join(command), file=sys.stderr)
    if subprocess.run(command, stdout=subprocess.DEVNULL).returncode != 0:
        raise InputError(f"{label}: proactive evaluate failed: {' '.join(command)}")
    with open(report, encoding="utf-8") as handle:
        data = json.load(handle)
    models = {m["model"]: m for m in [data] + data.get("comparison", [])}
    metrics = ("hit@1", "hit@4", "mrr")
    return {"blend": tuple(models["blend"][k] for k in metrics),
            "best": tuple(max(models[b][k] for b in BASELINES if b in models) for k in metrics)}


def cmd_logs(args):
    if args.proactive:
        make_logs(args)
    rows = []
    gru_cache = {}
    for label, train_name, test_name, online, zone_name in LOGS:
        if args.logs and not any(label.startswith(prefix) for prefix in args.logs.split(",")):
            continue
        train_path = os.path.join(args.data, train_name)
        test_path = os.path.join(args.data, test_name)
        if not (os.path.exists(train_path) and os.path.exists(test_path)):
            print(f"peers.py: {label}: {train_path} or {test_path} missing, skipped", file=sys.stderr)
            continue
        zone = ZoneInfo(zone_name) if zone_name else None
        train = read_donations(train_path, default_zone=zone)
        test = read_donations(test_path, default_zone=zone)
        for events in list(train.values()) + list(test.values()):
            for e in events:
                e.weight = count_weight(e.weight, args.counts)
        users = sorted(test)
        sampled = len(users)
        if args.max_users and len(users) > args.max_users:
            users = sorted(random.Random(args.seed).sample(users, args.max_users))  # the same users with and without counts
            sampled = len(users)
            subset = os.path.join(args.data, "peers-subset")
            os.makedirs(subset, exist_ok=True)
            keep = set(users)
            for src in (train_path, test_path):
                with open(src, encoding="utf-8") as inp, open(os.path.join(subset, os.path.basename(src)), "w",
                                                               encoding="utf-8") as out:
                    for line in inp:
                        if line.strip() and str(json.loads(line).get("user", "default")) in keep:
                            out.write(line)
        engine = None
        if args.engine:
            if sampled < len(test):
                train_path, test_path = (os.path.join(args.data, "peers-subset", os.path.basename(x))
                                         for x in (train_path, test_path))
            engine = engine_figures(args, label, train_path, test_path, online, zone_name)
        n_test = sum(len(test[u]) for u in users)
        n_train = sum(len(train.get(u, [])) for u in users)
        cells = {}
        for name in args.peers:
            start = time.process_time()
            all_ranks = []
            grus = None
            if name.startswith("gru"):
                key = (train_path, name)
                key_fresh = key not in gru_cache
                if key_fresh:  # one fit per train file (online runs learn on a copy)
                    per_user = {}
                    for u in users:
                        h = History(train.get(u, []))
                        per_user[u] = ([(h.rec(e.ts, e.local, e.context, end=i), e.target, e.weight)
                                        for i, e in enumerate(h.events)],
                                       [t for t, _ in _freq(train.get(u, [])).most_common()])
                    fit_start = time.process_time()
                    gru_cache[key] = (fit_grus(per_user, pooled=(name == "gru")), time.process_time() - fit_start)
                grus, fit_seconds = gru_cache[key]
                start -= 0 if key_fresh else fit_seconds  # a reused fit still counts in the time
            if grus is not None and online:
                by_user = walk_gru_online(copy.deepcopy(grus), train, test, users)
                for u in users:
                    all_ranks += by_user[u]
            else:
                for u in users:
                    all_ranks += eval_log_user(name, train.get(u, []), test[u], online, args.refit_days,
                                                grus.get(u) if grus else None, u)
            seconds = time.process_time() - start
            r = np.array(all_ranks)
            hit1 = float(np.mean((r >= 1) & (r <= 1)))
            hit4 = float(np.mean((r >= 1) & (r <= 4)))
            mrr = float(np.mean(np.where(r > 0, 1.0 / np.maximum(r, 1), 0.0)))
            cells[name] = (hit1, hit4, mrr, seconds)
            print(f"  {label} {name}: {hit1:.3f} / {hit4:.3f} / {mrr:.3f} ({seconds:.1f} s)", file=sys.stderr)
        rows.append((label, n_train, n_test, sampled, len(test), cells, engine))
    extra = ["engine blend", "best baseline"] if args.engine else []
    lines = ["| log | train / test events | users | " + " | ".join(extra + args.peers) + " | CPU s |",
             "|---|---:|---:|" + "---:|" * len(extra + args.peers) + "---|"]
    for label, n_train, n_test, sampled, total, cells, engine in rows:
        users_cell = f"{sampled} of {total}" if sampled < total else f"{sampled}"
        engine_cells = []
        if args.engine:
            engine_cells = ["{:.3f} / {:.3f} / {:.3f}".format(*engine["blend"]),
                            "{:.3f} / {:.3f} / {:.3f}".format(*engine["best"])]
        lines.append(f"| {label} | {n_train} / {n_test} | {users_cell} | " + " | ".join(engine_cells + [
            "{:.3f} / {:.3f} / {:.3f}".format(*cells[n][:3]) for n in args.peers]) + " | " + ", ".join(
            f"{n} {cells[n][3]:.0f}" for n in args.peers) + " |")
    table = "\n".join(lines)
    print(table)
    return [table]


def count_weight(count, how):
    """A training weight for a line standing for `count` donations: uses (count), log
    (1 + ln count) or rows (1)."""
    return {"uses": count, "log": 1 + math.log(count), "rows": 1.0}[how]


def _freq(events):
    c = Counter()
    for e in events:
        c[e.target] += e.weight
    return c


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("worlds", help="answer the questions of habit worlds and score them")
    w.add_argument("dirs", nargs="+", help="directories written by `proactive worlds generate`")
    w.add_argument("--refit-days", type=int, default=7,
                   help="live questions: logreg and lgbm are refitted at a question this many days after their last fit")
    w.add_argument("--score-only", action="store_true",
                   help="train nothing: score every DIR/predictions-*.jsonl already there")
    w.add_argument("--shifts", type=int, default=3,
                   help="training moments per donation: its instant and SHIFTS-1 random moments in the "
                        "hour before it (1 = donation instants only)")
    g = sub.add_parser("logs", help="hit@1 / hit@4 / mrr on the logs of docs/RESULTS-TABLE.md")
    g.add_argument("--data", default="out/peers", help="where the logs are (the file names the commands of "
                   "docs/RESULTS-TABLE.md give them)")
    g.add_argument("--proactive", help="a proactive binary: first make the missing logs in DATA with the "
                   "commands of docs/RESULTS-TABLE.md")
    g.add_argument("--max-users", type=int, default=0,
                   help="evaluate a seeded sample of this many users of a larger log (0 = all); the "
                        "sample's train and test files go to DATA/peers-subset/")
    g.add_argument("--counts", choices=["uses", "log", "rows"], default="uses",
                   help="training weight of a line with `count` (aggregated logs): count, 1 + ln count, or 1")
    g.add_argument("--engine", action="store_true",
                   help="also run `proactive evaluate --compare` (--proactive BIN) on the same files: the engine's "
                        "default model and the best baseline, on the same users")
    g.add_argument("--logs", help="comma-separated prefixes of the log names to run (default: all)")
    g.add_argument("--refit-days", type=int, default=7, help="online refit interval of logreg and lgbm")
    g.add_argument("--seed", type=int, default=7, help="seed of the user sample (--max-users)")
    for p in (w, g):
        p.add_argument("--peers", default=",".join(PEERS), help="comma-separated subset of " + ",".join(PEERS + OPTIONAL) + " (default: all but gru-user)")
        p.add_argument("--markdown", help="also write the tables to this Markdown file")
        p.add_argument("--gru-static", action="store_true", help="the GRU does not learn online")
    args = parser.parse_args(argv)
    GRUPeer.static = args.gru_static
    args.peers = [p for p in args.peers.split(",") if p]
    unknown = [p for p in args.peers if p not in PEERS + OPTIONAL]
    if unknown:
        parser.error(f"unknown peer(s): {', '.join(unknown)} (known: {', '.join(PEERS + OPTIONAL)})")
    if args.command == "logs" and args.engine and not args.proactive:
        parser.error("--engine needs --proactive BIN")
    try:
        tables = cmd_worlds(args) if args.command == "worlds" else cmd_logs(args)
    except (InputError, FileNotFoundError) as error:
        print(f"peers.py: {error}", file=sys.stderr)
        return 1
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write("\n\n".join(tables) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
