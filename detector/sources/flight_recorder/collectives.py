"""What one collective call is (:class:`FrSignature`: the op and its tensors, as compared), the
op as NCCL's watchdog names it, and when two ranks' calls of the same collective disagree."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from detector.sources.flight_recorder.dump import FrEntry

_OP_TYPES = {
    "all_reduce": "ALLREDUCE",
    "allreduce": "ALLREDUCE",
    "allreduce_coalesced": "ALLREDUCE_COALESCED",
    "all_gather": "ALLGATHER",
    "allgather": "ALLGATHER",
    "_all_gather_base": "_ALLGATHER_BASE",
    "_allgather_base": "_ALLGATHER_BASE",
    "all_gather_into_tensor_coalesced": "ALLGATHER_COALESCED",
    "reduce_scatter": "REDUCE_SCATTER",
    "_reduce_scatter_base": "_REDUCE_SCATTER_BASE",
    "reduce_scatter_tensor_coalesced": "REDUCE_SCATTER_COALESCED",
    "broadcast": "BROADCAST",
    "_broadcast_oop": "BROADCAST",
    "reduce": "REDUCE",
    "_reduce_oop": "REDUCE",
    "gather": "GATHER",
    "scatter": "SCATTER",
    "all_to_all": "ALLTOALL",
    "all_to_all_single": "ALLTOALL_BASE",
    "alltoall_base": "ALLTOALL_BASE",
    "barrier": "BARRIER",
    "send": "SEND",
    "recv": "RECV",
    "coalesced": "COALESCED",
}
# ops whose tensor sizes may differ between ranks by design
_SIZES_MAY_DIFFER = frozenset({
    "all_to_all", "all_to_all_single", "all_to_all_v_single", "alltoall_base", "all_gather_v",
    "reduce_scatter_v", "coalesced", "ALLGATHER_coalesced", "REDUCE_SCATTER_coalesced",
})


def op_type(op: str) -> str:
    """The op as NCCL's watchdog names it (``ALLREDUCE``), from the profiling name's op."""
    return _OP_TYPES.get(op, op.strip("_").upper() or "UNKNOWN")


@dataclass(frozen=True, slots=True)
class FrSignature:
    """What a rank called as one collective: the op and its tensors (as compared)."""

    op: str
    input_sizes: tuple[tuple[int, ...], ...]
    output_sizes: tuple[tuple[int, ...], ...]
    input_dtypes: tuple[str, ...]
    output_dtypes: tuple[str, ...]
    parts: int = 1  # ops in a coalesced group

    def describe(self) -> str:
        def sizes(value: tuple[tuple[int, ...], ...]) -> str:
            return "[" + ", ".join("[" + ", ".join(map(str, s)) + "]" for s in value) + "]"

        ins = f"input {sizes(self.input_sizes)} {'/'.join(self.input_dtypes) or '-'}"
        outs = f"output {sizes(self.output_sizes)} {'/'.join(self.output_dtypes) or '-'}"
        extra = f", {self.parts} coalesced ops" if self.parts > 1 else ""
        return f"{op_type(self.op)} ({ins}, {outs}{extra})"


def signature(entries: Sequence[FrEntry]) -> FrSignature:
    first = entries[0]
    op = first.op
    if len(entries) > 1:  # a coalesced group: compare the ops and their tensors in order
        ordered = sorted(entries, key=lambda e: (e.op_id if e.op_id is not None else 0, e.record_id))
        return FrSignature(
            op=op,
            input_sizes=tuple(s for e in ordered for s in e.input_sizes),
            output_sizes=tuple(s for e in ordered for s in e.output_sizes),
            input_dtypes=tuple(d for e in ordered for d in e.input_dtypes),
            output_dtypes=tuple(d for e in ordered for d in e.output_dtypes),
            parts=len(ordered),
        )
    return FrSignature(op, first.input_sizes, first.output_sizes, first.input_dtypes, first.output_dtypes)


def comparable(sig: FrSignature) -> tuple[object, ...]:
    """What must agree between ranks for one collective (root-dependent sides left out)."""
    ins: object = sig.input_sizes
    outs: object = sig.output_sizes
    in_dt: object = sig.input_dtypes
    out_dt: object = sig.output_dtypes
    if sig.op in _SIZES_MAY_DIFFER:
        ins = outs = None
    if sig.op == "gather":  # only the root has outputs
        outs = out_dt = None
    if sig.op == "scatter":  # only the root has inputs
        ins = in_dt = None
    return (sig.op, sig.parts, ins, outs, in_dt, out_dt)


def mismatch_kind(a: FrSignature, b: FrSignature) -> Literal["type", "size", "dtype"]:
    if a.op != b.op or a.parts != b.parts:
        return "type"
    ca, cb = comparable(a), comparable(b)
    if ca[2:4] != cb[2:4]:
        return "size"
    return "dtype"
