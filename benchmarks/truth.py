"""The truth set: careful-review labels and mutation recipes (``benchmarks/truth/``), and the figures that measure
the verifier, or a recorded judge, against them.

A label (``labels.jsonl``, one JSON object a line; fields in ``benchmarks/truth/README.md``) is one SAU on one
SA-Bench repository as careful readers scored it after reading the whole repository. A recipe (``recipes.jsonl``)
is one small edit at the code that really implements a labelled SAU, which breaks it (kinds ``numerical``,
``method``, ``protocol``, ``ordering``, ``stub``), or a ``neutral`` edit that must change nothing. Agreement uses
``benchmarks.metrics`` (exact, within ±0.25, quadratic weighted kappa on SA-Bench's scale).
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from benchmarks.metrics import agreement, scale_level
from sau.vocabulary import split_ref

FOLDER = Path(__file__).resolve().parent / "truth"
LABELS = FOLDER / "labels.jsonl"
RECIPES = FOLDER / "recipes.jsonl"
STEPS = FOLDER / "steps.jsonl"
# where a labelled D4 step is performed: along the run that performs the claim, only by a script a person launches
# by hand, in code nothing runs, only as a setting a library acts on, or nowhere
STEP_STATUSES = ("runs", "separate-launch", "dead", "config-only", "absent")
STATIC_BASES = ("constant", "formula", "call_order", "dataset_or_metric_name", "absence", "stub", "needs_judgement")
DRIFTS = ("none", "absent", "numerical", "method", "protocol", "ordering", "stub", "unused")
BREAKING_KINDS = ("numerical", "method", "protocol", "ordering", "stub")
NEUTRAL = "neutral"
WRONG = 0.25  # a settled verdict further than this from the truth is a wrong settle


class TruthError(ValueError):
    """A labels or recipes file, or a recipe's edit, that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Label:
    """One SAU's truth on one repository: ``config``/``paper`` the SA-Bench repository, ``sau`` the claim id,
    ``score`` on SA-Bench's scale, ``static_basis`` what decides it, ``code_checkable`` false when no element of the
    claim can be shown by code, ``readers`` the scores each reading gave (``first``, ``second`` or ``None``,
    ``third`` or ``None``), ``settled_by`` how the label was settled."""

    config: str
    paper: str
    sau: str
    dimension: str
    score: float
    drift: str
    evidence: tuple[str, ...]
    static_basis: str
    code_checkable: bool
    rationale: str
    readers: Mapping[str, float | None]
    settled_by: str


@dataclass(frozen=True)
class Recipe:
    """One edit of a labelled repository: replace lines ``start``..``end`` (1-based, inclusive) of ``file``, whose
    text must be ``old``, by ``new``; ``target`` the SAU it breaks (``None`` for a neutral edit), ``why`` the
    reader's reason."""

    id: str
    config: str
    paper: str
    target: str | None
    kind: str
    file: str
    start: int
    end: int
    old: str
    new: str
    why: str
    origin: str = ""  # ``recipes.jsonl:12``: where the recipe is written, for error messages


def _records(path: Path) -> Iterable[tuple[int, dict]]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise TruthError(f"{path}: cannot read: {error}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise TruthError(f"{path}:{number}: not JSON: {error.msg}") from None
        if not isinstance(data, dict):
            raise TruthError(f"{path}:{number}: expected a JSON object")
        yield number, data


@dataclass(frozen=True)
class StepLabel:
    """Where careful readers found one step of a D4 claim performed on one repository (``steps.jsonl``): ``step``
    its index in the spec's steps (0-based), ``name`` the spec's name of it, ``where`` the spans of the statements
    that perform it as ``(file, first line, last line)`` (1-based, inclusive; empty when nothing performs it along
    what runs), ``status`` one of ``STEP_STATUSES``."""

    config: str
    paper: str
    sau: str
    step: int
    name: str
    where: tuple[tuple[str, int, int], ...]
    status: str


def _span(text: str) -> tuple[str, int, int]:
    """``"train.py:12-14"`` or ``"train.py:12"`` -> ``("train.py", 12, 14)``. Raises ``ValueError`` otherwise."""
    file, _, lines = str(text).rpartition(":")
    first, _, last = lines.partition("-")
    span = (file, int(first), int(last or first))
    if not file or not 1 <= span[1] <= span[2]:
        raise ValueError(f"not a span file:first-last: {text!r}")
    return span


def load_step_labels(path: Path = STEPS) -> list[StepLabel]:
    """The step locations of ``path`` in file order (claim rows, ``"claim": true``, are skipped). Raises
    ``TruthError`` naming the file and line of a malformed one (a missing field, a span that is not
    ``file:first-last``, an unknown status, spans given for a step that is absent, a step labelled twice)."""
    steps, seen = [], set()
    for number, data in _records(path):
        if data.get("claim"):
            continue
        try:
            label = StepLabel(str(data["config"]), str(data["paper"]), str(data["sau"]), int(data["step"]),
                              str(data["name"]), tuple(_span(w) for w in data["where"]), str(data["status"]))
        except KeyError as error:
            raise TruthError(f"{path}:{number}: not a step label: missing field {error.args[0]!r}") from None
        except (TypeError, ValueError) as error:
            raise TruthError(f"{path}:{number}: not a step label: {error}") from None
        if label.status not in STEP_STATUSES or (label.status == "absent" and label.where):
            raise TruthError(f"{path}:{number}: status {label.status!r} must be one of {', '.join(STEP_STATUSES)}, "
                             "and an absent step has no spans")
        key = (label.config, label.paper, label.sau, label.step)
        if key in seen:
            raise TruthError(f"{path}:{number}: step {label.step} of {label.sau} labelled twice for "
                             f"{label.config}/{label.paper}")
        seen.add(key)
        steps.append(label)
    return steps


def load_labels(path: Path = LABELS) -> list[Label]:
    """The labels of ``path`` in file order. Raises ``TruthError`` naming the file and line of a malformed label
    (a missing field, a score off the scale, an unknown drift or static basis, a repeated SAU of one repository)."""
    labels, seen = [], set()
    for number, data in _records(path):
        try:
            label = Label(str(data["config"]), str(data["paper"]), str(data["sau"]), str(data["dimension"]),
                          float(data["score"]), str(data["drift"]), tuple(data["evidence"]),
                          str(data["static_basis"]), bool(data["code_checkable"]), str(data["rationale"]),
                          dict(data["readers"]), str(data["settled_by"]))
            scale_level(label.score)
        except KeyError as error:
            raise TruthError(f"{path}:{number}: not a label: missing field {error.args[0]!r}") from None
        except (TypeError, ValueError) as error:
            raise TruthError(f"{path}:{number}: not a label: {error}") from None
        if label.drift not in DRIFTS or label.static_basis not in STATIC_BASES:
            raise TruthError(f"{path}:{number}: unknown drift {label.drift!r} or static basis {label.static_basis!r}")
        key = (label.config, label.paper, label.sau)
        if key in seen:
            raise TruthError(f"{path}:{number}: {label.sau} labelled twice for {label.config}/{label.paper}")
        seen.add(key)
        labels.append(label)
    return labels


def load_recipes(path: Path = RECIPES) -> list[Recipe]:
    """The recipes of ``path`` in file order. Raises ``TruthError`` naming the file and line of a malformed one."""
    recipes = []
    for number, data in _records(path):
        try:
            recipe = Recipe(str(data["id"]), str(data["config"]), str(data["paper"]), data["target"],
                            str(data["kind"]), str(data["file"]), int(data["start"]), int(data["end"]),
                            str(data["old"]), str(data["new"]), str(data["why"]), f"{path}:{number}")
        except KeyError as error:
            raise TruthError(f"{path}:{number}: not a recipe: missing field {error.args[0]!r}") from None
        except (TypeError, ValueError) as error:
            raise TruthError(f"{path}:{number}: not a recipe: {error}") from None
        if recipe.kind not in (*BREAKING_KINDS, NEUTRAL) or (recipe.kind == NEUTRAL) != (recipe.target is None) \
                or not 1 <= recipe.start <= recipe.end:
            raise TruthError(f"{path}:{number}: recipe {recipe.id}: a kind of {', '.join(BREAKING_KINDS)} with a "
                             f"target, or {NEUTRAL} without one, and 1 <= start <= end")
        recipes.append(recipe)
    return recipes


def apply_recipe(recipe: Recipe, repo: Path, destination: Path) -> Path:
    """Copy ``repo`` to ``destination`` (without its ``result/`` folder, SA-Bench's scores) and make the recipe's
    edit there, keeping the file's line endings. Returns ``destination``. Raises ``TruthError`` when the file's lines
    ``start``..``end`` are not the recipe's ``old`` text (the repository is not the one labelled)."""
    shutil.copytree(repo, destination, symlinks=True, ignore=lambda folder, names: (
        ["result"] if Path(folder) == Path(repo) else []))
    target = destination / recipe.file
    try:
        with open(target, encoding="utf-8", newline="") as handle:
            lines = handle.read().splitlines(keepends=True)
    except OSError as error:
        raise TruthError(f"{recipe.origin}: recipe {recipe.id}: {recipe.file}: cannot read: "
                         f"{error.strerror or type(error).__name__}") from None
    except UnicodeDecodeError:
        raise TruthError(f"{recipe.origin}: recipe {recipe.id}: {recipe.file}: not UTF-8 text") from None
    ending = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    current = "\n".join(line.rstrip("\r\n") for line in lines[recipe.start - 1:recipe.end])
    if recipe.end > len(lines) or current != recipe.old:
        raise TruthError(f"{recipe.origin}: recipe {recipe.id}: {recipe.file}:{recipe.start}-{recipe.end} does not "
                         "hold the text the recipe replaces")
    replacement = [line + ending for line in recipe.new.split("\n")]
    if recipe.end == len(lines) and not lines[-1].endswith(("\n", "\r")):
        replacement[-1] = replacement[-1][:-len(ending)]
    lines[recipe.start - 1:recipe.end] = replacement
    with open(target, "w", encoding="utf-8", newline="") as handle:
        handle.write("".join(lines))
    return destination


def inter_rater(labels: Iterable[Label]) -> dict:
    """Agreement of the first and second readers on the SAUs both read: ``agreement`` fields (pairs, exact, near,
    qwk), ``third_readings`` (disagreements settled by a third reading) and ``share`` of labels read twice."""
    labels = list(labels)
    pairs = [(lab.readers["first"], lab.readers["second"]) for lab in labels if lab.readers.get("second") is not None]
    figures = agreement([(float(a), float(b)) for a, b in pairs])
    figures["third_readings"] = sum(lab.settled_by == "third reading" for lab in labels)
    figures["share"] = len(pairs) / len(labels) if labels else None
    return figures


def _against(pairs: list[tuple[float, float, str]]) -> dict:
    """Figures of (ours, truth, status) triples: settle rate, agreement of settled and of all scored verdicts, and
    the wrong settles (settled more than ``WRONG`` from the truth)."""
    settled = [(ours, truth) for ours, truth, status in pairs if status == "settled"]
    wrong = sum(abs(ours - truth) > WRONG + 1e-9 for ours, truth in settled)
    return {"saus": len(pairs), "settled": len(settled), "settle_rate": len(settled) / len(pairs) if pairs else None,
            "settled_agreement": agreement(settled), "scored_agreement": agreement([(o, t) for o, t, _ in pairs]),
            "wrong_settles": wrong, "wrong_settle_share": wrong / len(settled) if settled else None}


def verifier_figures(labels: Iterable[Label], verdicts: Mapping[tuple[str, str, str], tuple[float | None, str]]
                     ) -> dict:
    """The verifier against the truth, overall, per dimension and per static basis. ``verdicts`` maps ``(config,
    paper, sau)`` to ``(score or None, status)``; SAUs without a verdict score are counted in ``unscored`` and left
    out of the agreement (as the verifier's own aggregates leave them out)."""
    groups: dict[str, dict[str, list]] = {"overall": defaultdict(list), "dimension": defaultdict(list),
                                          "static_basis": defaultdict(list)}
    unscored: dict[str, int] = defaultdict(int)
    for label in labels:
        score, status = verdicts.get((label.config, label.paper, label.sau), (None, "missing"))
        if score is None:
            unscored[label.dimension] += 1
            continue
        triple = (score, label.score, status)
        groups["overall"]["all"].append(triple)
        groups["dimension"][label.dimension].append(triple)
        groups["static_basis"][label.static_basis].append(triple)
    return {"overall": _against(groups["overall"]["all"]),
            "by_dimension": {d: _against(p) for d, p in sorted(groups["dimension"].items())},
            "by_static_basis": {b: _against(groups["static_basis"][b]) for b in STATIC_BASES
                                if b in groups["static_basis"]},
            "unscored": dict(sorted(unscored.items()))}


def judge_figures(labels: Iterable[Label], decisions: Mapping[tuple[str, str], float]) -> dict:
    """A recorded judge (SA-Bench's decisions, ``(config, claim_id) -> score``) against the truth: agreement overall
    and per dimension, on the labelled SAUs it decided."""
    by_dimension: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for label in labels:
        decided = decisions.get((label.config, label.sau))
        if decided is not None:
            by_dimension[label.dimension].append((decided, label.score))
    every = [pair for pairs in by_dimension.values() for pair in pairs]
    return {"overall": agreement(every), "by_dimension": {d: agreement(p) for d, p in sorted(by_dimension.items())}}


Spans = tuple[tuple[str, int, int], ...]  # a verdict's evidence: (file, first line, last line) each, 1-based


def mutant_outcome(recipe: Recipe, before: Mapping[str, tuple[float | None, str]],
                   after: Mapping[str, tuple[float | None, str]],
                   evidence: tuple[Mapping[str, Spans], Mapping[str, Spans]] = ({}, {}),
                   drifts: tuple[Mapping[str, str | None], Mapping[str, str | None]] = ({}, {})) -> dict:
    """What one recipe did, from the verdicts (``sau -> (score, status)``) before and after its edit: ``detected``
    when the target's score dropped (a target without a score before cannot drop); ``named`` when it was detected
    or when the target's verdict now names the edit: its drift kind (``drifts``: ``sau -> kind or None`` before
    and after) is set and another than before, and its first evidence span (the most telling) lies in the edited
    lines. A compound claim's score is the share of its elements that hold, rounded to the scale
    (../shared/LABELLING.md), so one drifted value among seven leaves 0.75 at 0.75 while the verdict names it; of
    the other SAUs whose score
    or status changed, ``collateral`` those whose evidence (``evidence``: ``sau -> Spans`` before and after the
    edit) lies in the edited lines, so that the edit changed what they cite (a dataset loader two claims share),
    and ``false_alarms`` the rest (for a neutral recipe, every changed SAU: it breaks nothing). The same split as
    ``benchmarks.injection.outcome``, which also counts a verdict whose evidence the edit touched as collateral."""
    target_before = before.get(recipe.target, (None, ""))[0] if recipe.target else None
    target_after = after.get(recipe.target, (None, ""))[0] if recipe.target else None
    detected = target_before is not None and target_after is not None and target_after < target_before
    changed = sorted(sau for sau in before if sau != recipe.target and before[sau] != after.get(sau))
    added = recipe.new.count("\n") + 1 if recipe.new else 0
    spans = ((recipe.start, recipe.end), (recipe.start, recipe.start + added - 1))  # in the original, in the copy

    def cites_edit(sau: str) -> bool:
        return recipe.kind != NEUTRAL and any(
            file == recipe.file and line <= last and first <= end
            for (first, last), side in zip(spans, evidence) for file, line, end in side.get(sau, ()))

    collateral = [sau for sau in changed if cites_edit(sau)]
    drift_after = drifts[1].get(recipe.target) if recipe.target else None
    first = evidence[1].get(recipe.target, ())[:1] if recipe.target else ()
    named = detected or (drift_after is not None and drift_after != drifts[0].get(recipe.target) and any(
        file == recipe.file and line <= spans[1][1] and spans[1][0] <= end for file, line, end in first))
    return {"id": recipe.id, "kind": recipe.kind, "target": recipe.target, "before": target_before,
            "after": target_after, "detected": detected, "named": named, "collateral": collateral,
            "false_alarms": [sau for sau in changed if sau not in collateral]}


def recipe_figures(outcomes: Iterable[dict]) -> dict:
    """Per recipe kind: mutants, detected and detection rate, named and its rate (breaking kinds), mutants with a
    false alarm, false alarms per mutant (every kind; for neutral recipes any change is one) and collateral changes
    per mutant (``mutant_outcome``; an outcome without ``collateral`` counts none, one without ``named`` counts
    ``detected``)."""
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for outcome in outcomes:
        by_kind[outcome["kind"]].append(outcome)
    figures = {}
    for kind in (*BREAKING_KINDS, NEUTRAL):
        mine = by_kind.get(kind, [])
        if not mine:
            continue
        detected = sum(o["detected"] for o in mine)
        named = sum(o.get("named", o["detected"]) for o in mine)
        alarms = [len(o["false_alarms"]) for o in mine]
        figures[kind] = {"mutants": len(mine), "detected": detected if kind != NEUTRAL else None,
                         "detection_rate": detected / len(mine) if kind != NEUTRAL else None,
                         "named": named if kind != NEUTRAL else None,
                         "named_rate": named / len(mine) if kind != NEUTRAL else None,
                         "with_false_alarm": sum(a > 0 for a in alarms),
                         "false_alarms_per_mutant": sum(alarms) / len(mine),
                         "collateral_per_mutant": sum(len(o.get("collateral", ())) for o in mine) / len(mine)}
    return figures


Placement = tuple[str, str | None, str | None]  # a D4 step finding: (outcome, strength or None, "file:line" or None)


def step_figures(labels: Iterable[StepLabel], placed: Mapping[tuple[str, str, str], tuple[Placement, ...]]) -> dict:
    """The verifier's placement of D4 steps against the readers' (``labels``). ``placed`` maps ``(config, paper, sau)``
    to the verdict's step findings in the spec's step order (``rules.findings.StepFinding``: outcome, strength,
    ``ref``). The verifier places a step when its outcome is ``ordered``; the place is right when it lies in one of
    the reader's spans (same file, a line within the span). Of the steps readers found running (``runs``):
    ``at_reader`` placed right (``strong`` of them strongly), ``elsewhere`` placed at another line, ``missed`` not
    placed; of the others: ``placed_not_running`` placed although no reader found it running there,
    ``agree_not_running`` not placed. ``precision`` is ``at_reader`` over every placement, ``recall`` ``at_reader``
    over the running steps; labels whose claim has no verdict or fewer findings than its step index are counted in
    ``unmatched``."""
    counts = dict.fromkeys(("steps", "running", "at_reader", "strong", "elsewhere", "missed", "placed_not_running",
                            "agree_not_running", "unmatched"), 0)
    for label in labels:
        found = placed.get((label.config, label.paper, label.sau), ())
        counts["steps"] += 1
        if label.step >= len(found):
            counts["unmatched"] += 1
            continue
        outcome, strength, ref = found[label.step]
        where = split_ref(ref) if outcome == "ordered" and ref else None
        right = where is not None and any(f == where[0] and a <= where[1] <= b for f, a, b in label.where)
        if label.status == "runs":
            counts["running"] += 1
            key = "at_reader" if right else "elsewhere" if where is not None else "missed"
            counts[key] += 1
            counts["strong"] += right and strength == "strong"
        else:
            counts["placed_not_running" if where is not None else "agree_not_running"] += 1
    placements = counts["at_reader"] + counts["elsewhere"] + counts["placed_not_running"]
    return {**counts, "precision": counts["at_reader"] / placements if placements else None,
            "recall": counts["at_reader"] / counts["running"] if counts["running"] else None}


def truth_parser(doc: str) -> argparse.ArgumentParser:
    """A command line for a measurement over the truth set: described by ``doc``'s first paragraph, with the
    SA-Bench ``runs`` folder, ``--decisions`` (SA-Bench's judge) and ``--labels`` (default ``LABELS``); each script
    adds its own options."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("runs", type=Path, help="SA-Bench's experiments/runs: <config>/<paper slug>/repo")
    parser.add_argument("--decisions", type=Path, help="folder of <config>.jsonl decisions (SA-Bench's judge)")
    parser.add_argument("--labels", type=Path, default=LABELS, help="labels file (default: the project's)")
    return parser
