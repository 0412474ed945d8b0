"""Reading a lesson file's YAML without trusting it: plain data only, with the line of every value.

The file is parsed event by event (PyYAML's parser, which builds nothing) into dicts, lists, texts, whole numbers,
numbers, booleans and nulls, by the YAML 1.2 core schema (``yes``, ``no``, ``on`` and ``off`` stay texts: a
choice "No" is not a boolean). Nothing else is made: a tag (``!!python/object/apply:...``, ``!include``, even
``!!str``) is refused, not constructed; anchors and aliases are refused (a lesson has no use for them, and an
alias bomb is made of them); so are more than one document, keys that are not texts, and duplicate keys. Before
parsing, the bytes are capped (:data:`MAX_BYTES`), must be UTF-8, and may hold no NUL or other control character
(tabs and line breaks aside); while parsing, the nesting depth (:data:`MAX_DEPTH`) and the number of values
(:data:`MAX_VALUES`) are capped. Every problem is a :class:`YamlProblem` with its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from mvlab.i18n import gettext, localised_number

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_VALUES", "YamlProblem", "Located", "read_yaml"]

MAX_BYTES = 256 * 1024
"""Largest lesson file (256 KiB: a lesson of 12 long steps is about 20 KiB)."""
MAX_DEPTH = 12
"""Deepest nesting of lists and mappings (a lesson file needs 5)."""
MAX_VALUES = 20_000
"""Most values (texts, numbers, lists, mappings) in one file."""

_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class YamlProblem(Exception):
    """What is wrong with the file, at ``line`` (1-based; 0: the file as a whole)."""

    def __init__(self, line: int, message: str):
        super().__init__(line, message)
        self.line, self.message = line, message

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass
class Located:
    """A parsed file: ``value`` (plain data) and ``lines``, the line of each value by its path (a tuple of keys
    and list indices; a mapping's key's own line for a key's value)."""

    value: object
    lines: dict[tuple, int]

    def line(self, path) -> int:
        """The line of the value at ``path``, or of the nearest enclosing value known (0: none)."""
        path = tuple(path)
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 0)


def _decoded(raw: bytes) -> str:
    if len(raw) > MAX_BYTES:
        raise YamlProblem(0, gettext("the file has more than {limit} bytes ({kib} KiB), the most a lesson file may "
                                     "have.").format(limit=localised_number(f"{MAX_BYTES:,}"), kib=MAX_BYTES // 1024))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise YamlProblem(line, gettext("the file is not UTF-8 text (byte {n} cannot be read); save it as "
                                        "UTF-8.").format(n=exc.start + 1)) from None
    bad = _CONTROL.search(text)
    if bad:
        line = text[:bad.start()].count("\n") + 1
        raise YamlProblem(line, gettext("the file holds a control character ({character}, e.g. a NUL byte), which "
                                        "is not text; remove it.").format(character=f"U+{ord(bad.group()):04X}"))
    return text


MAX_DIGITS = 40
"""Longest number a lesson file may write (a setting's bound has a few digits; 10**100000 is an attack)."""


def _scalar(event: yaml.ScalarEvent):
    value = event.value
    if event.style is not None or event.implicit == (False, True):  # quoted or a block: always text
        return value
    if value in ("", "~", "null", "Null", "NULL"):
        return None
    if value in ("true", "True", "TRUE"):
        return True
    if value in ("false", "False", "FALSE"):
        return False
    if _INT.fullmatch(value) or _FLOAT.fullmatch(value):
        if len(value) > MAX_DIGITS:
            raise YamlProblem(event.start_mark.line + 1, gettext(
                "a number of {n} characters; a lesson file's numbers have at most {limit}.").format(
                n=localised_number(f"{len(value):,}"), limit=MAX_DIGITS))
        if _INT.fullmatch(value):
            return int(value, 0) if value[:2] in ("0o", "0x") else int(value)
        return float(value.lower().replace(".inf", "inf").replace(".nan", "nan"))
    return value


def read_yaml(raw: bytes) -> Located:
    """The plain data of ``raw`` with each value's line; a :class:`YamlProblem` for anything else (see the
    module)."""
    text = _decoded(raw)
    lines: dict[tuple, int] = {}
    stack: list[list] = []  # [container, path, pending key, keys seen, pending key's line]
    root, documents, count = None, 0, 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            line = event.start_mark.line + 1 if event.start_mark is not None else 0
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise YamlProblem(line, gettext("the file holds more than one YAML document (a '---' line after "
                                                    "the first); a lesson file is one document."))
                continue
            if isinstance(event, yaml.AliasEvent):
                raise YamlProblem(line, gettext("aliases ({alias}) are not allowed in a lesson file; write the value "
                                                "out.").format(alias=f"*{event.anchor}"))
            if isinstance(event, (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if event.anchor is not None:
                    raise YamlProblem(line, gettext("anchors ({anchor}) are not allowed in a lesson file; write "
                                                    "each value out.").format(anchor=f"&{event.anchor}"))
                if event.tag is not None and event.tag != "!":
                    raise YamlProblem(line, gettext("tags ({tag}) are not allowed in a lesson file: it holds plain "
                                                    "texts, numbers, lists and mappings only.").format(tag=event.tag))
                count += 1
                if count > MAX_VALUES:
                    raise YamlProblem(line, gettext("the file holds more than {limit} values; a lesson needs far "
                                                    "fewer.").format(limit=localised_number(f"{MAX_VALUES:,}")))
            if isinstance(event, yaml.ScalarEvent):
                value = _scalar(event)
                if stack and isinstance(stack[-1][0], dict) and stack[-1][2] is None:
                    _key(stack[-1], value, line)
                    continue
                _place(stack, value, line, lines)
                if not stack:
                    root = value
            elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    raise YamlProblem(line, gettext("the file nests lists and mappings more than {limit} deep; a "
                                                    "lesson needs {needed}.").format(limit=MAX_DEPTH, needed=5))
                if stack and isinstance(stack[-1][0], dict) and stack[-1][2] is None:
                    raise YamlProblem(line, gettext("a key must be a text, not a list or a mapping."))
                container = {} if isinstance(event, yaml.MappingStartEvent) else []
                path = _place(stack, container, line, lines)
                if not stack:
                    root = container
                stack.append([container, path, None, set(), line])
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                stack.pop()
    except (ValueError, OverflowError) as exc:  # the scanner's own (an escape past Unicode, "\UFFFFFFFF")
        raise YamlProblem(0, gettext("this is not valid YAML ({error}); check the quotes and escapes.").format(
            error=str(exc)[:120])) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        said = " ".join(part for part in (getattr(exc, "context", None), getattr(exc, "problem", None)) if part)
        hint = (" " + gettext("A text that holds ': ' (a colon and a space) or starts with a quote, '[', '{', '*', "
                              "'&', '!' or '#' must be in quotes (\"like: this\"), and so must a text in [...] or "
                              "{...} that holds '?', ',' or ':'.")
                if any(words in said for words in ("mapping values", "found character", "expected <block end>",
                                                   "flow")) else "")
        raise YamlProblem(mark.line + 1 if mark is not None else 0,
                          gettext("this is not valid YAML ({error}); check the indentation and the quotes.").format(
                              error=said or exc) + hint) from None
    return Located(root, lines)


def _key(frame: list, key, line: int) -> None:
    if not isinstance(key, str):
        raise YamlProblem(line, gettext("a key must be a text; {key} is not (quote it).").format(key=repr(key)))
    if key in frame[3]:
        raise YamlProblem(line, gettext("the key '{key}' appears twice in one mapping; keep one.").format(key=key))
    frame[3].add(key)
    frame[2], frame[4] = key, line


def _place(stack: list, value, line: int, lines: dict) -> tuple:
    """Put ``value`` into the innermost open container and note its line (a mapping's value: its key's line); its
    path."""
    if not stack:
        lines[()] = line
        return ()
    container, path, key, _, key_line = stack[-1]
    if isinstance(container, dict):
        container[key] = value
        stack[-1][2] = None
        path = path + (key,)
        lines[path] = key_line
        return path
    container.append(value)
    path = path + (len(container) - 1,)
    lines[path] = line
    return path
