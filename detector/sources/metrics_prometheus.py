"""Prometheus HTTP API query results -> samples: range (``matrix``) and instant (``vector``)
answers, the ``data`` object alone, or the bare ``result`` list. Anything else raises InputError."""

from __future__ import annotations

import json
from collections.abc import Iterator

from detector.errors import InputError
from detector.sources.metric_samples import Sample, sample_time, sample_value


def prometheus_samples(text: str, *, where: str = "<metrics>") -> Iterator[Sample]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            where, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from exc
    except ValueError as exc:  # an integer of more than 4300 digits
        raise InputError(where, f"not usable JSON: {str(exc)[:120]}") from None
    except RecursionError:
        raise InputError(where, "JSON nested too deeply") from None
    result = _result_list(document, where)
    for index, item in enumerate(result):
        if not isinstance(item, dict) or not isinstance(item.get("metric", {}), dict):
            raise InputError(where, f"result[{index}] is not an object with a 'metric' object")
        metric = item.get("metric", {})
        name = str(metric.get("__name__", ""))
        labels = tuple(sorted((str(k), str(v)) for k, v in metric.items() if k != "__name__"))
        if "values" in item:
            pairs = item["values"]
        elif "value" in item:
            pairs = [item["value"]]
        else:
            raise InputError(where, f"result[{index}] has neither 'values' nor 'value'")
        if not isinstance(pairs, list):
            raise InputError(where, f"result[{index}]: 'values' is not a list")
        for pair in pairs:
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise InputError(
                    where, f"result[{index}]: a sample is not a [time, value] pair: {pair!r:.80}"
                )
            moment = sample_time(pair[0])
            if moment is None:
                raise InputError(where, f"result[{index}]: bad sample time {pair[0]!r:.40}")
            value = sample_value(pair[1])
            if value is not None:
                yield name, labels, moment, value


def _result_list(document: object, where: str) -> list[object]:
    if isinstance(document, list):
        return document
    if not isinstance(document, dict):
        raise InputError(where, "expected a Prometheus query result (an object or a list)")
    if document.get("status") == "error":
        kind = document.get("errorType", "error")
        raise InputError(where, f"the query failed ({kind}): {document.get('error', 'no message')}")
    data = document.get("data", document)
    if not isinstance(data, dict) or "result" not in data:
        raise InputError(where, "no 'data.result' in the document: not a Prometheus query result")
    if data.get("resultType") in ("scalar", "string"):
        raise InputError(where, f"a {data['resultType']} result has no series")
    result = data["result"]
    if not isinstance(result, list):
        raise InputError(where, "'data.result' is not a list")
    return result

