"""Typed reading of one mapping from a config file, with ``file:line`` in every error.

Hooks (built-in or plugins) receive their settings as a :class:`Settings`: read each key with a
typed getter, then call :meth:`Settings.done`, which refuses the keys nobody read. Secrets read
with :meth:`Settings.get_secret` are remembered so that records and output can mask them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from detector.errors import ConfigError
from detector.support.yamlfile import YamlList, YamlMap

_MISSING: Any = object()


class Settings:
    def __init__(
        self,
        data: Mapping[str, Any],
        path: str,
        *,
        what: str,
        line: int | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if not isinstance(data, Mapping):
            raise ConfigError(path, line, f"{what} must be a mapping, not {type(data).__name__}")
        self._data = data
        self.path = path
        self.what = what
        self.line = data.line if isinstance(data, YamlMap) else line
        self.environ: Mapping[str, str] = environ if environ is not None else {}
        self._read: set[str] = set()
        self.secrets: list[str] = []

    # --- positions and errors ---

    def line_of(self, key: str | None = None) -> int | None:
        if isinstance(self._data, YamlMap):
            return self._data.where(key)[0]
        return self.line

    def error(self, key: str | None, detail: str) -> ConfigError:
        where = f"{self.what}.{key}" if key else self.what
        return ConfigError(self.path, self.line_of(key), f"{where}: {detail}")

    def has(self, key: str) -> bool:
        return key in self._data

    def keys(self) -> Iterator[str]:
        return iter(self._data)

    def _get(self, key: str, default: Any) -> Any:
        self._read.add(key)
        if key not in self._data or self._data[key] is None:
            if default is _MISSING:
                raise self.error(key, "is required")
            return default
        return self._data[key]

    def done(self) -> None:
        """Refuse keys that no getter read (typos, options of another hook type)."""
        unknown = [k for k in self._data if k not in self._read]
        if unknown:
            known = ", ".join(sorted(self._read)) or "none"
            raise self.error(unknown[0], f"unknown key (known here: {known})")

    # --- typed getters ---

    def get_str(self, key: str, default: Any = _MISSING, *, pattern: re.Pattern[str] | None = None,
                choices: tuple[str, ...] | None = None) -> Any:
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)  # job_id: 1234 written without quotes
        if not isinstance(value, str) or not value:
            raise self.error(key, f"must be a non-empty string, not {value!r}")
        if choices is not None and value not in choices:
            raise self.error(key, f"must be one of {', '.join(choices)}, not {value!r}")
        if pattern is not None and pattern.fullmatch(value) is None:
            raise self.error(key, f"{value!r} does not match {pattern.pattern}")
        return value

    def get_bool(self, key: str, default: bool) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, not {value!r}")
        return value

    def get_float(self, key: str, default: float, *, minimum: float | None = None,
                  maximum: float | None = None) -> float:
        value = self._get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(key, f"must be a number, not {value!r}")
        if minimum is not None and value < minimum:
            raise self.error(key, f"must be at least {minimum}, not {value}")
        if maximum is not None and value > maximum:
            raise self.error(key, f"must be at most {maximum}, not {value}")
        return float(value)

    def get_int(self, key: str, default: Any = _MISSING, *, minimum: int | None = None) -> Any:
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"must be an integer, not {value!r}")
        if minimum is not None and value < minimum:
            raise self.error(key, f"must be at least {minimum}, not {value}")
        return value

    def get_str_list(self, key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        value = self._get(key, default)
        if value is default:
            return tuple(default)
        if isinstance(value, str):
            raise self.error(key, "must be a list of strings (an argument list), not one string")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, f"must be a list of strings, not {value!r}")
        return tuple(str(v) for v in value)

    def get_str_map(self, key: str) -> dict[str, str]:
        value = self._get(key, {})
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str | int | float) and not isinstance(v, bool)
            for k, v in value.items()
        ):
            raise self.error(key, "must be a mapping of names to strings")
        return {k: str(v) for k, v in value.items()}

    def get_section(self, key: str) -> Settings:
        value = self._get(key, {})
        line = self.line_of(key)
        return Settings(value, self.path, what=f"{self.what}.{key}", line=line,
                        environ=self.environ)

    def get_sections(self, key: str) -> list[Settings]:
        value = self._get(key, [])
        if not isinstance(value, list):
            raise self.error(key, "must be a list")
        out = []
        for i, item in enumerate(value):
            line = value.pos[i][0] if isinstance(value, YamlList) else self.line_of(key)
            out.append(Settings(item, self.path, what=f"{self.what}.{key}[{i}]", line=line,
                                environ=self.environ))
        return out

    def get_secret(self, key: str, *, required: bool = True) -> str | None:
        """A secret given inline (``key:``) or by the name of an environment variable
        (``key_env:``). Remembered in :attr:`secrets` so that it can be masked."""
        env_key = f"{key}_env"
        inline = self._get(key, None)
        env_name = self._get(env_key, None)
        if inline is not None and env_name is not None:
            raise self.error(env_key, f"give either {key} or {env_key}, not both")
        if env_name is not None:
            if not isinstance(env_name, str) or not env_name:
                raise self.error(env_key, "must name an environment variable")
            inline = self.environ.get(env_name)
            if not inline:
                if required:
                    raise self.error(env_key, f"environment variable {env_name} is not set")
                return None
        if inline is None:
            if required:
                raise self.error(key, f"is required (or {env_key})")
            return None
        if not isinstance(inline, str) or not inline:
            raise self.error(key, "must be a non-empty string")
        self.secrets.append(inline)
        return inline
