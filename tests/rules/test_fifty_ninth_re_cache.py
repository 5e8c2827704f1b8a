"""The rule cache of a paste's set (the ``re`` engine's, built for a small input): unpickled, its
prefilter's alternation of every rule is compiled only when a large range is searched (a small one
yields every line, which the selector's required literals sort out), and the selector keeps every
rule's required literals instead of reading them from the patterns again. Matches are the same."""

from __future__ import annotations

import pickle

from detector.rules.compile import load_ruleset
from detector.rules.scanners import RePrefilter
from detector.types import StreamKind


def test_a_pickled_re_set_matches_like_the_one_built_without_compiling_its_alternation() -> None:
    built = load_ruleset(cache=False, engine="re")
    loaded = pickle.loads(pickle.dumps(built, protocol=pickle.HIGHEST_PROTOCOL))
    prefilter = loaded.prefilter
    assert isinstance(prefilter, RePrefilter) and prefilter._regex is None
    assert loaded.selector._everything is not None
    paste = (b"step 10 loss 2.3\n\n"
             b"[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
             b"[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation timeout: "
             b"WorkNCCL(SeqNum=15734, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600037 "
             b"milliseconds before timing out.\n")
    small = list(prefilter.candidates(paste, 0, len(paste)))
    assert small == [0, 18, 94]  # (every non-empty line)
    assert prefilter._regex is None

    def verified(rules: object) -> list[tuple[int, list[str]]]:
        out = []
        for off in rules.candidates(paste, 0, len(paste)):  # type: ignore[attr-defined]
            line = paste[off:paste.index(b"\n", off)].decode()
            ids = sorted(m.rule.id for m in rules.match_all(line, StreamKind.RANK_LOG))  # type: ignore[attr-defined]
            if ids:
                out.append((off, ids))
        return out

    assert verified(loaded) == verified(built) and verified(built)
    big = paste * ((RePrefilter.EVERY_LINE_BELOW // len(paste)) + 1)
    found = list(prefilter.candidates(big, 0, len(big)))
    assert prefilter._regex is not None and 0 not in found and 18 in found
