"""Route the SAUs the rules leave unresolved to the LLM judge and turn its validated answers into verdicts.

Routing (``llm_fallback.routing``): a verdict goes to the judge when its status is ``unresolved`` and its SAU is
code-checkable; settled verdicts never do, nor claims marked ``checkable: false``. Requests hold ``LLMSettings.batch`` SAUs each, in spec
order. An answer that fails validation (``llm_fallback.prompt.validate``) is retried once with the error; still
invalid, the SAU stays ``unresolved`` with the reason. An endpoint that gives no answer, an exhausted
``max_calls`` budget or (in ``replay`` mode) a missing recording leaves the SAUs of that request ``unresolved``
with the rules' estimate and the reason; the run goes on.

Determinism: prompts depend only on the spec and the repository; requests run concurrently but results are put
back in spec order; the budget is handed out in request order, first attempts before retries. With the same
recordings, ``replay`` gives the same verdicts as the run that recorded them, without opening a connection.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from extractors.facts import RepositoryIndex
from llm_fallback import prompt
from llm_fallback.client import ChatEndpoint, EndpointError
from llm_fallback.settings import LLMSettings
from llm_fallback.evidence import EvidenceCollector
from llm_fallback.prompt import Judgement, Unit
from llm_fallback.routing import needs_judge, routed_counts
from llm_fallback.store import RecordingError, Recordings, exchange_key
from sau.vocabulary import Evidence, Status, Verdict, split_where

# Reason kinds of SAUs the judge could not decide, as counted in ``JudgeStats.failed``.
UNREACHABLE, INVALID, BUDGET, MISSING_RECORDING = "endpoint", "invalid answer", "budget", "missing recording"


class MissingRecording(Exception):
    """Replay found no recording for a request; ``sau_ids`` names its SAUs and ``key`` the exchange."""

    def __init__(self, sau_ids: list[str], key: str) -> None:
        super().__init__(f"no recording for SAU {', '.join(sau_ids)} (exchange {key})")
        self.sau_ids, self.key = sau_ids, key


@dataclass
class JudgeStats:
    """What the judge did in one run: ``routed`` SAUs per dimension, ``judged`` SAUs, ``failed`` SAUs left
    unresolved by reason kind, ``calls`` exchanges used (recorded or live), ``missing`` SAU ids whose recording
    was missing in replay mode, ``unusable`` (SAU id, message naming the file) whose recording was unusable in replay
    mode, ``errors`` distinct error messages (endpoint, recordings outside replay)."""

    routed: dict[str, int] = field(default_factory=dict)
    judged: int = 0
    failed: Counter = field(default_factory=Counter)
    calls: int = 0
    missing: list[str] = field(default_factory=list)
    unusable: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class _Request:
    units: list[Unit]
    messages: list[dict]
    answer: str | None = None
    results: dict[str, Judgement | str] = field(default_factory=dict)
    failure: tuple[str, str] | None = None  # (reason kind, message) when no usable answer came

    @property
    def sau_ids(self) -> list[str]:
        return [u.verdict.sau.id for u in self.units]


class Judge:
    """The judge for one run; call it with the rules' verdicts and the repository index (the ``judge`` hook of
    ``verifier.run.verify``). Raises nothing for endpoint or answer problems (they become unresolved verdicts);
    ``RecordingError`` becomes an unresolved verdict too, with the file named in ``stats.errors``."""

    def __init__(self, settings: LLMSettings) -> None:
        if settings.mode not in ("auto", "record", "replay"):
            raise ValueError(f"the judge runs in auto, record or replay mode, not {settings.mode!r}")
        self.settings = settings
        self.recordings = Recordings(settings.recordings)
        # replay never builds a client, so it cannot open a connection
        self._endpoint = None if settings.mode == "replay" else ChatEndpoint(settings)
        self.stats = JudgeStats()

    @property
    def model(self) -> str:
        return self.settings.model

    def __call__(self, verdicts: list[Verdict], index: RepositoryIndex) -> list[Verdict]:
        self.stats.routed = routed_counts(verdicts)
        collector = EvidenceCollector(index, self.settings.evidence_chars)
        units = [Unit(v, tuple(collector.blocks(v))) for v in verdicts if needs_judge(v)]
        size = max(1, self.settings.batch)
        requests = [_Request(group, prompt.messages(group, index))
                    for group in (units[i:i + size] for i in range(0, len(units), size))]
        budget = self.settings.max_calls
        first = requests if budget is None else requests[:budget]
        for request in requests[len(first):]:
            request.failure = (BUDGET, f"LLM call budget exhausted (--max-llm-calls {budget})")
        self._run(first, index)
        retry = [r for r in first if r.failure is None and any(isinstance(v, str) for v in r.results.values())]
        if budget is not None:
            left = max(0, budget - len(first))
            for request in retry[left:]:
                request.failure = (INVALID, self._invalid(request) + "; no budget left for a retry")
            retry = retry[:left]
        for request in retry:
            request.messages = prompt.retry_messages(request.messages, request.answer or "",
                                                     sorted(set(v for v in request.results.values()
                                                                if isinstance(v, str))))
        self._run(retry, index, keep=True)
        decided: dict[str, Verdict] = {}
        for request in requests:
            for unit in request.units:
                decided[unit.verdict.sau.id] = self._verdict(unit, request, index)
        return [decided.get(v.sau.id, v) if needs_judge(v) else v for v in verdicts]

    def _run(self, requests: list[_Request], index: RepositoryIndex, keep: bool = False) -> None:
        """Send ``requests`` concurrently and validate the answers; with ``keep``, an answer valid for some SAUs
        of a batch on the first try stays valid."""
        self.stats.calls += len(requests)
        with ThreadPoolExecutor(max(1, self.settings.concurrency)) as pool:
            answers = list(pool.map(self._exchange, requests))
        for request, answer in zip(requests, answers):
            if isinstance(answer, tuple):
                request.failure = answer
                continue
            results = prompt.validate(answer, request.sau_ids, index)
            if keep:
                results = {k: request.results[k] if isinstance(request.results.get(k), Judgement) else v
                           for k, v in results.items()}
            request.answer, request.results = answer, results

    def _exchange(self, request: _Request) -> str | tuple[str, str]:
        """The answer text, from a recording or the endpoint; or (reason kind, message) when there is none."""
        settings = self.settings
        key = exchange_key(settings.model, request.messages, prompt.PARAMS)
        try:
            if settings.mode != "record":
                recorded = self.recordings.get(key)
                if recorded is not None:
                    return recorded
            if self._endpoint is None:
                error = MissingRecording(request.sau_ids, key)
                self.stats.missing.extend(request.sau_ids)
                return MISSING_RECORDING, f"replay: {error}"
            answer = self._endpoint.complete(request.messages, prompt.PARAMS)
            self.recordings.put(key, settings.model, request.messages, prompt.PARAMS, request.sau_ids, answer)
            return answer
        except EndpointError as error:
            self.stats.errors.append(str(error))
            return UNREACHABLE, str(error)
        except RecordingError as error:
            if settings.mode == "replay":  # replay promises the recorded decisions: an unusable one is an error
                self.stats.unusable.extend((sau_id, str(error)) for sau_id in request.sau_ids)
            else:
                self.stats.errors.append(str(error))
            return MISSING_RECORDING, str(error)

    def _invalid(self, request: _Request) -> str:
        return "; ".join(sorted(set(v for v in request.results.values() if isinstance(v, str))))

    def _verdict(self, unit: Unit, request: _Request, index: RepositoryIndex) -> Verdict:
        verdict = unit.verdict
        sau_id = verdict.sau.id
        result = request.results.get(sau_id)
        if isinstance(result, Judgement):
            self.stats.judged += 1
            evidence = tuple(_evidence(source, line, index) for source, line in result.evidence)
            return replace(verdict, score=result.score, status=Status.JUDGED, reason=result.reasoning,
                           decided_by=self.settings.model, evidence=evidence,
                           drift=verdict.drift if result.score < 1 else None)
        if request.failure is not None:
            kind, message = request.failure
        else:
            kind, message = INVALID, f"invalid LLM answer after a retry: {result}"
        self.stats.failed[kind] += 1
        return replace(verdict, reason=f"{verdict.reason}; LLM judge: {message}")


def _evidence(source: str, line: int, index: RepositoryIndex) -> Evidence:
    """A validated (source, line) ref as report evidence; ``file#cell`` sources become file and cell."""
    text = index.lines[source][line - 1].strip()
    file, cell = split_where(source)
    return Evidence(file, line, line, text[:200], "judge", cell=cell)
