"""One language at a time: English or Spanish narration and interface.

Every sentence escaramuza shows (the rules' narration, action texts, reasons, the GM
session, playtest reports, the web page) is written in English in the code and marked
with :func:`_` (or :func:`ngettext`); Babel extracts the marked strings into
``escaramuza/locale/escaramuza.pot`` and the Spanish catalog
``escaramuza/locale/es/LC_MESSAGES/escaramuza.po`` translates them (docs/translating.md).
English is the source language, so English needs no catalog.

The language is a :class:`~contextvars.ContextVar`: the command line sets it once from
``--lang`` / ``ESCARAMUZA_LANG`` before anything is narrated, the web page per request.
Events store their text when they are created, so the language must be chosen before the
battle starts: a battle's log is in the language that was current while it was played.
Game terms (pv, heridas, ráfaga, Dado Exprés…) are the seeds' words in both languages.

This module imports only the standard library: the rules layer narrates, and
``--version`` / ``--help`` must stay light. The Spanish catalog is read from its compiled
``.mo`` file on first use.
"""

from __future__ import annotations

import gettext
import os
import string
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from escaramuza.rules.core.errors import EscaramuzaError

#: The gettext domain (file name of the catalogs).
DOMAIN = "escaramuza"
#: The languages escaramuza speaks; the first is the default and the source language.
LANGUAGES: tuple[str, ...] = ("en", "es")
DEFAULT_LANGUAGE = LANGUAGES[0]
#: Environment variable the command line and the web page read when ``--lang`` is absent.
ENV_VAR = "ESCARAMUZA_LANG"


def locale_dir() -> Path:
    """``escaramuza/locale``, wherever the package is installed."""
    import escaramuza  # the package's __init__ is a version string: cheap

    return Path(escaramuza.__file__).resolve().parent / "locale"


@cache
def translations(language: str) -> gettext.NullTranslations:
    """The catalog of ``language`` (English: the identity, the code's own strings)."""
    if language == DEFAULT_LANGUAGE:
        return _ENGLISH
    mo = locale_dir() / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
    with mo.open("rb") as fp:
        return gettext.GNUTranslations(fp)


#: English, the source language: gettext's identity catalog.
_ENGLISH = gettext.NullTranslations()


class _Language:
    """A language's catalog and its compiled templates (see :func:`_f`)."""

    __slots__ = ("code", "translations", "compiled")

    def __init__(self, code: str, translations: gettext.NullTranslations) -> None:
        self.code = code
        self.translations = translations
        #: msgid → (``%`` template, argument order or None when it is the msgid's own).
        self.compiled: dict[str, tuple[str, tuple[int, ...] | None]] = {}

    def compile(self, msgid: str) -> tuple[str, tuple[int, ...] | None]:
        names = _field_names(msgid)
        parts: list[str] = []
        order: list[int] = []
        for literal, field, spec, conversion in _FORMATTER.parse(self.translations.gettext(msgid)):
            parts.append(literal.replace("%", "%%"))
            if field is None:
                continue
            if field not in names or conversion:
                raise ValueError(f"{self.code} catalog: {msgid!r} has an unknown field {field!r}")
            parts.append("%" + (spec or "s"))
            order.append(names.index(field))
        found = ("".join(parts), None if order == list(range(len(names))) else tuple(order))
        self.compiled[msgid] = found
        return found


_FORMATTER = string.Formatter()


def _field_names(template: str) -> list[str]:
    """The ``{fields}`` of ``template`` in order of first appearance."""
    names: list[str] = []
    for _literal, field, _spec, _conversion in _FORMATTER.parse(template):
        if field is not None and field not in names:
            names.append(field)
    return names


@cache
def _language_of(code: str) -> _Language:
    return _Language(code, translations(code))


#: The current language. The default (English) is shared by every context and thread
#: that set none; only its cache of compiled templates ever changes.
_current: ContextVar[_Language] = ContextVar(
    "escaramuza_language",
    default=_language_of(DEFAULT_LANGUAGE),  # noqa: B039
)


#: ``_current.get`` bound once: :func:`_f` and :func:`_` run for every narrated event.
_get = _current.get


def _(message: str) -> str:
    """``message`` in the current language."""
    return _get().translations.gettext(message)


def _f(msgid: str, *args: object) -> str:
    """``msgid`` (a ``str.format`` template with named fields) in the current language,
    filled with ``args`` — one per distinct field, in the order the fields first appear in
    ``msgid``. ``_f("{c} loses {n} PV.", c.name, n)`` is
    ``_("{c} loses {n} PV.").format(c=c.name, n=n)``, translators see the named fields
    and may reorder them.

    The rules narrate every event of every battle, playtests too, so this is on the hot
    loop: each language compiles a template once into a ``%`` format (with the fields'
    order), and a call is one dict lookup and one ``%`` — about what the f-string it
    replaces cost, where ``.format`` with keywords took three times as long.
    A field takes a format spec (``{bonus:+d}``), not a conversion (``!r``).
    """
    compiled = _get().compiled
    try:
        template, order = compiled[msgid]
    except KeyError:
        template, order = _get().compile(msgid)
    if order is None:
        return template % args
    return template % tuple([args[i] for i in order])


def ngettext(singular: str, plural: str, n: int) -> str:
    """``singular`` or ``plural`` (as ``n`` asks) in the current language."""
    return _current.get().translations.ngettext(singular, plural, n)


def N_(message: str) -> str:  # gettext's conventional name
    """Mark ``message`` for extraction without translating it now (tables of texts
    translated where they are shown)."""
    return message


#: Words for the engine's value names (sides, statuses, outcome reasons) shown in text;
#: the values themselves (JSON, state files) stay as they are.
_WORDS: dict[str, str] = {
    "heroes": N_("heroes"),
    "enemies": N_("enemies"),
    "active": N_("active"),
    "down": N_("down"),
    "defeated": N_("defeated"),
    "dead": N_("dead"),
    "fled": N_("fled"),
    "mutual": N_("mutual"),
    "timeout": N_("timeout"),
    "withdrawal": N_("withdrawal"),
    # decisions (Decision.name), as the GM session, suggest and the page show them
    "turn": N_("turn"),
    "declarar": N_("declare"),
    "defensa": N_("defence"),
    "resistir": N_("resist"),
    "repartir": N_("allot"),
    "continuar": N_("go on"),
    "defensa_perfecta": N_("Defensa Perfecta"),
    "expres_before": N_("Dado Exprés before the roll"),
    "expres_after": N_("Dado Exprés after the roll"),
    "active_defence": N_("defensa activa"),  # the seeds' term, as the narration says it
    # temperaments (Combatant.temperament), as the GM session, suggest and the page show them
    "tactician": N_("tactician"),
    "brute": N_("brute"),
    "cautious": N_("cautious"),
    "coward": N_("coward"),
    "protector": N_("protector"),
    "random": N_("random"),
    # engines (who played a search's rollouts), as in "(fast engine)"
    # TRANSLATORS: fills "({engine} engine)": the engine of the compiled kernels.
    "fast": N_("fast"),
    # TRANSLATORS: fills "({engine} engine)": the rules engine, the reference for the kernels.
    "reference": N_("reference"),
}
_WINNERS: dict[str | None, str] = {
    "heroes": N_("the heroes win"),
    "enemies": N_("the enemies win"),
    None: N_("nobody wins"),
}


def either(items: Sequence[str]) -> str:
    """``a, b or c`` in the current language (one item: itself; none: empty)."""
    if len(items) < 2:
        return "".join(items)
    return _f("{first} or {last}", ", ".join(items[:-1]), items[-1])


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, as ``context`` reads it (one English word
    that two places translate differently)."""
    return _get().translations.pgettext(context, message)


def outcome_reason(reason: str) -> str:
    """Why a battle ended (``Outcome.reason``) in words: ``defeated`` is the losing side
    out of the fight, not a combatant's status, so it has a context of its own."""
    if reason == "defeated":
        return pgettext("outcome reason", "defeated")
    if reason == "mutual":
        return pgettext("outcome reason", "mutual")
    if reason == "timeout":
        return pgettext("outcome reason", "timeout")
    if reason == "withdrawal":
        return pgettext("outcome reason", "withdrawal")
    return word(reason)


def word(value: str) -> str:
    """A side, status, outcome reason, decision, temperament or engine (``heroes``,
    ``down``, ``timeout``, ``turn``, ``cautious``, ``fast``…) in words."""
    found = _WORDS.get(value)
    return value if found is None else _(found)


def who_wins(winner: str | None) -> str:
    """ "the heroes win" / "the enemies win" / "nobody wins"."""
    return _(_WINNERS[winner])


def check_language(language: str, where: str = "--lang") -> str:
    """``language`` if escaramuza speaks it, else a clear :class:`EscaramuzaError`."""
    code = language.strip().lower()
    if code not in LANGUAGES:
        raise EscaramuzaError(
            f"{where}: {language!r} is not a language escaramuza speaks "
            f"(choose {' or '.join(LANGUAGES)})"
        )
    return code


def language_from(option: str | None) -> str:
    """The language a command asked for: ``option`` (``--lang``), else ``ESCARAMUZA_LANG``,
    else English."""
    if option:
        return check_language(option)
    env = os.environ.get(ENV_VAR, "")
    return check_language(env, ENV_VAR) if env.strip() else DEFAULT_LANGUAGE


def set_language(language: str) -> None:
    """Make ``language`` current in this context (the command line calls it once)."""
    _current.set(_language_of(check_language(language)))


def current_language() -> str:
    return _current.get().code


@contextmanager
def language(code: str) -> Iterator[None]:
    """``code`` current inside the block (tests, the web page's requests)."""
    token = _current.set(_language_of(check_language(code)))
    try:
        yield
    finally:
        _current.reset(token)


__all__ = [
    "DEFAULT_LANGUAGE",
    "ENV_VAR",
    "LANGUAGES",
    "N_",
    "_",
    "_f",
    "check_language",
    "current_language",
    "language",
    "language_from",
    "ngettext",
    "set_language",
    "translations",
    "who_wins",
    "word",
]
