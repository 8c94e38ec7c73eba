"""Hyperparameters declared once: a typed field with its default, description and valid range.

Box: utilities (used by the algorithms, ``rlpyt/algos``, and the samplers). A class that
derives from :class:`Hyperparams` declares each of its constructor keywords as a class-level
field::

    class DQN(ReplayRlAlgorithm):
        delta_clip: float | None = hyperparam(1.0, "Huber threshold; None: squared error.",
                                              POSITIVE, after="min_steps_learn")

From the declarations, at class creation, come:

- the constructor: ``__init__`` with one keyword per field (rlpyt's names, defaults and
  positional order; ``inspect.signature(Cls)`` shows it), binding each call (a misspelt keyword
  is a ``TypeError`` naming it and the nearest keyword), checking each value against its range
  (:class:`Range`; the message names class, keyword, value and range), storing it under its
  name, then calling ``__post_init__`` for what depends on several fields;
- the docstring's ``Args:`` table (type, description, valid range, default), appended to the
  class docstring, so ``help(Cls)`` and the API reference list every keyword;
- the annotations the command line's ``--set`` check reads (``typing.get_type_hints`` of the
  generated ``__init__``), and the attributes ``params.json`` records (stored under the
  keyword names).

A subclass adds fields and changes inherited ones without restating the rest: ``name =
hyperparam(new_default)`` changes a default (description, range and type stay the
parent's); ``after="other"`` (or ``after=FIRST``) places a new or re-declared field right after
``other`` in the positional order, otherwise a re-declared field keeps its place and a new one
goes last; ``name = fixed(value)`` takes an inherited field out of the constructor (the class
sets it). ``hyperparam(REQUIRED, ...)`` declares a keyword without default (the samplers'
``EnvCls``), and ``keyword_only=True`` one that cannot be passed by position (the parallel
samplers' ``start_method``): keyword-only fields come after all the others, in their order.
A class that writes its own ``__init__`` (or inherits a hand-written one) keeps it:
nothing is generated for it. Invariant: ``Cls.__hyperparams__`` holds every field in
constructor order, and the generated ``__init__`` sets each of them on the instance before
``__post_init__`` runs.
"""

from __future__ import annotations

import difflib
import inspect
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from rlpyt.utils.checks import _range_text as range_text
from rlpyt.utils.checks import check_number

__all__ = [
    "COUNT",
    "FIRST",
    "FRACTION",
    "NONNEGATIVE",
    "NUMBER",
    "POSITIVE",
    "POSITIVE_OR_INF",
    "REQUIRED",
    "STEPS",
    "Hyperparam",
    "Hyperparams",
    "Range",
    "copied_dict",
    "described",
    "fixed",
    "hyperparam",
]

FIRST = "<first>"
"""``after=FIRST``: the field comes first in the positional order."""

REQUIRED: Any = inspect.Parameter.empty
"""``hyperparam(REQUIRED, ...)``: a keyword without default (the caller must pass it)."""

_INHERIT: Any = object()  # a field's part taken from the parent's declaration
_GENERATED: set[Any] = set()  # the constructors made by _make_init


@dataclass(frozen=True)
class Range:
    """A numeric range, checked with :func:`rlpyt.utils.checks.check_number`.

    ``str(range)`` is the range in words (``a number in [0, 1]``), as in the error message.
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    integer: bool = False
    allow_inf: bool = False

    def __call__(self, owner: str, name: str, value: object) -> Any:
        """``value`` if in range (an ``int`` for integer ranges), else raise naming it."""
        return check_number(
            owner,
            name,
            value,
            low=self.low,
            high=self.high,
            low_open=self.low_open,
            high_open=self.high_open,
            integer=self.integer,
            allow_inf=self.allow_inf,
        )

    def __str__(self) -> str:
        return range_text(self.low, self.high, self.low_open, self.high_open, self.integer)


COUNT = Range(low=1, integer=True)
STEPS = Range(low=0, integer=True)
POSITIVE = Range(low=0, low_open=True)
POSITIVE_OR_INF = Range(low=0, low_open=True, allow_inf=True)
NONNEGATIVE = Range(low=0)
FRACTION = Range(low=0, high=1)
NUMBER = Range()


Check = Callable[[str, str, Any], Any]


class DescribedCheck:
    """A check ``(owner, name, value) -> value`` with its valid values in words.

    Made by :func:`described`; the docstring table shows ``description`` as the valid range.
    """

    def __init__(self, check: Check, description: str):
        self.check = check
        self.description = description
        self.__doc__ = check.__doc__
        self.__name__ = getattr(check, "__name__", "check")

    def __call__(self, owner: str, name: str, value: Any) -> Any:
        return self.check(owner, name, value)


def described(description: str) -> Callable[[Check], DescribedCheck]:
    """Decorate a check function with its valid values in words (``"'uniform' or 'gaussian'"``)."""

    def decorate(check: Check) -> DescribedCheck:
        return DescribedCheck(check, description)

    return decorate


@described("a dict (copied; None: {})")
def copied_dict(owner: str, name: str, value: object) -> dict[str, Any]:
    """A copy of a dict keyword (None: ``{}``), so that instances never share one."""
    if value is not None and not isinstance(value, Mapping):
        raise TypeError(f"{owner}: {name}={value!r} is not a dict (or None).")
    return dict(value or {})


class Hyperparam:
    """One declared hyperparameter (made by :func:`hyperparam` or :func:`fixed`).

    Attributes:
        name: The keyword (and attribute) name.
        default: Its default.
        doc: One line for the docstring table.
        valid: A :class:`Range` or a check ``(owner, name, value) -> value`` (None: any value).
        type: The declared type (from the class annotation).
        keyword: False for a field the class sets itself (:func:`fixed`).
        keyword_only: True for a keyword that cannot be passed by position.
        after: Where the declaration puts the field (see the module docstring).
        given: The parts the declaration states itself (``"default"``, ``"doc"``, ``"valid"``,
            ``"type"``, ``"keyword_only"``); the others are the parent's.
    """

    def __init__(
        self,
        default: Any,
        doc: Any = _INHERIT,
        valid: Any = _INHERIT,
        *,
        after: str | None = None,
        type: Any = _INHERIT,
        keyword: bool = True,
        keyword_only: Any = _INHERIT,
    ):
        self.name = ""
        # The parts this declaration states (the others come from the parent's declaration):
        given = dict(default=default, doc=doc, valid=valid, type=type, keyword_only=keyword_only)
        self.given = frozenset(part for part, value in given.items() if value is not _INHERIT)
        self.default = default
        self.doc = doc
        self.valid = valid
        self.type = type
        self.keyword = keyword
        self.keyword_only = keyword_only
        self.after = after

    def inherit(self, name: str, parent: Hyperparam | None, annotation: object, owner: str) -> None:
        """Complete the declaration from the parent's and the class annotation.

        Raises:
            TypeError: a new field without description or type.
        """
        self.name = name
        if self.default is _INHERIT:
            self.default = parent.default if parent else None
        for part in ("doc", "valid", "type"):
            if getattr(self, part) is _INHERIT:
                setattr(self, part, getattr(parent, part) if parent else None)
        if self.keyword_only is _INHERIT:
            self.keyword_only = parent.keyword_only if parent else False
        if annotation is not None and parent is None and self.type is None:
            self.type = annotation
        if parent is None and (not self.doc or self.type is None):
            lacks = "a description" if not self.doc else "a type annotation"
            raise TypeError(f"{owner}.{name}: a new hyperparameter needs {lacks}.")

    def check(self, owner: str, value: Any) -> Any:
        """The value to store: checked against ``valid`` (None passes where the type allows it)."""
        if value is None and _allows_none(self.type) and not _is_check(self.valid):
            return None
        if self.valid is not None:
            value = self.valid(owner, self.name, value)
        return bool(value) if self.type is bool else value

    def describe(self) -> str:
        """``name (type): description. Valid: range. Default: value.``, for the docstring.

        A required keyword says ``Required.`` instead of its default; a keyword-only one adds
        ``Keyword-only.``
        """
        text = f"{self.name} ({_type_text(self.type)}): {self.doc}"
        valid = _valid_text(self.valid)
        if valid:
            text += f" Valid: {valid}."
        if self.default is REQUIRED:
            text += " Required."
        else:
            text += f" Default: ``{_default_text(self.default)}``."
        return f"{text} Keyword-only." if self.keyword_only else text


def hyperparam(
    default: Any = _INHERIT,
    doc: str | None = None,
    valid: Range | Check | None = None,
    *,
    after: str | None = None,
    type: Any = None,
    keyword_only: bool | None = None,
) -> Any:
    """Declare a hyperparameter (or change an inherited one): see the module docstring.

    Args:
        default: Its default (re-declared without one: the parent's; ``REQUIRED``: none, the
            caller passes it).
        doc: One line for the docstring (re-declared without one: the parent's).
        valid: A :class:`Range` (``COUNT``, ``FRACTION``, ...) or a check ``(owner, name,
            value) -> value`` that raises naming the keyword (re-declared without one: the
            parent's; None on a new field: any value).
        after: Place it right after this field (``FIRST``: first) in the positional order.
        type: The keyword's type where it differs from the attribute's annotation (TD3's
            ``learning_rate``: ``float | None`` as a keyword, a float once resolved).
        keyword_only: True: the keyword cannot be passed by position (re-declared without one:
            the parent's; None on a new field: False).

    Returns:
        The declaration (typed ``Any`` so that ``x: float = hyperparam(...)`` type-checks).
    """
    return Hyperparam(
        default,
        _INHERIT if doc is None else doc,
        _INHERIT if valid is None else valid,
        after=after,
        type=_INHERIT if type is None else type,
        keyword_only=_INHERIT if keyword_only is None else keyword_only,
    )


def fixed(value: Any = _INHERIT) -> Any:
    """Take an inherited hyperparameter out of the constructor: the class sets it.

    Args:
        value: Its value (without one: the parent's default, or what ``__post_init__`` sets).
    """
    return Hyperparam(value, keyword=False)


class Hyperparams:
    """Base of classes whose constructor is derived from :func:`hyperparam` declarations.

    Type checkers see a constructor that takes any arguments (the one below, for them only):
    the generated one exists at run time, where it checks names, ranges and types. (A dataclass
    transform would let them check keywords, but it would also take every annotated instance
    attribute, such as ``agent``, for a constructor argument.)
    """

    if typing.TYPE_CHECKING:

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            """The generated constructor (see the module docstring)."""

    __hyperparams__: ClassVar[dict[str, Hyperparam]] = {}
    __own_hyperparams__: ClassVar[dict[str, Hyperparam]] = {}  # declared by the class itself

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        own = {name: v for name, v in vars(cls).items() if isinstance(v, Hyperparam)}
        fields = _merged_fields(cls, _inherited_fields(cls), own)
        for name in own:
            delattr(cls, name)  # the instance holds the value; no class-level stand-in
        cls.__hyperparams__ = fields
        cls.__own_hyperparams__ = {name: fields[name] for name in own}
        # A hand-written __init__ (here or inherited) is kept: it calls its parent's itself.
        inherited = cls.__init__
        if "__init__" not in vars(cls) and (
            inherited in _GENERATED or inherited is object.__init__
        ):
            cls.__init__ = _make_init(cls)  # type: ignore[method-assign, misc]
            cls.__doc__ = _docstring(cls)

    def __post_init__(self) -> None:
        """Called by the generated ``__init__`` once every field is stored (resolve, check)."""

    @classmethod
    def missing_parts(cls) -> list[str]:
        """What a subclass must still provide to be constructed (empty: complete).

        Here: the methods still marked ``@abc.abstractmethod``. Subclasses add their own.
        """
        return [
            name
            for name in dir(cls)
            if getattr(inspect.getattr_static(cls, name), "__isabstractmethod__", False)
        ]


def _inherited_fields(cls: type[Hyperparams]) -> dict[str, Hyperparam]:
    """The fields of all the bases of ``cls``, each from the first class in its MRO declaring it.

    The order is the first base's constructor order; a field only a later base has comes
    right after the field it follows in that base's order (a mixin that lists only the common
    base's fields, combined with a class that inserts fields between them, keeps that class's
    order).
    """
    bases = [base for base in cls.__bases__ if issubclass(base, Hyperparams)]
    if not bases:
        return {}
    names = list(bases[0].__hyperparams__)
    for base in bases[1:]:
        previous = None
        for name in base.__hyperparams__:
            if name not in names:
                names.insert(0 if previous is None else names.index(previous) + 1, name)
            previous = name
    fields = {}
    for name in names:
        declared = (
            vars(base)["__own_hyperparams__"][name]
            for base in cls.__mro__[1:]
            if name in vars(base).get("__own_hyperparams__", {})
        )
        fields[name] = next(declared)
    return fields


def _merged_fields(
    cls: type[Hyperparams], fields: dict[str, Hyperparam], own: dict[str, Hyperparam]
) -> dict[str, Hyperparam]:
    """The parent's fields with the class's declarations applied, in constructor order."""
    annotations = inspect.get_annotations(cls)
    for name, field in own.items():
        parent = fields.get(name)
        annotation = annotations.get(name)
        resolved = _resolve(cls, name, annotation) if annotation is not None else None
        field.inherit(name, parent, resolved, cls.__name__)
        if field.after is None:
            fields[name] = field  # a re-declared field keeps its place, a new one goes last
            continue
        fields.pop(name, None)
        if field.after != FIRST and field.after not in fields:
            raise TypeError(f"{cls.__name__}.{name}: after={field.after!r} names no field.")
        items = list(fields.items())
        at = 0 if field.after == FIRST else [n for n, _ in items].index(field.after) + 1
        fields = dict([*items[:at], (name, field), *items[at:]])
    # Python's order of parameters: the keyword-only ones after the others.
    return dict(sorted(fields.items(), key=lambda item: bool(item[1].keyword_only)))


def _resolve(cls: type, name: str, annotation: object) -> Any:
    """The annotation as a type (a string annotation evaluated in the class's module)."""
    if not isinstance(annotation, str):
        return annotation
    module = sys.modules.get(cls.__module__)
    namespace = dict(vars(module)) if module is not None else {}
    try:
        return eval(annotation, namespace)  # the class's own annotation, in its module
    except NameError as error:
        raise TypeError(
            f"{cls.__name__}.{name}: its annotation {annotation!r} names what the module does "
            f"not import at run time ({error}); import it outside TYPE_CHECKING."
        ) from None


def _make_init(cls: type[Hyperparams]) -> Callable[..., None]:
    """The constructor of ``cls``: bind, check, store every field, then ``__post_init__``."""
    fields = cls.__hyperparams__
    keywords = [f for f in fields.values() if f.keyword]
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    keyword_only = inspect.Parameter.KEYWORD_ONLY
    signature = inspect.Signature(
        [
            inspect.Parameter("self", positional),
            *(
                inspect.Parameter(
                    f.name,
                    keyword_only if f.keyword_only else positional,
                    default=f.default,
                    annotation=f.type,
                )
                for f in keywords
            ),
        ]
    )

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        owner = type(self).__name__
        missing = type(self).missing_parts()
        if missing:
            raise TypeError(
                f"{owner} cannot be constructed: it lacks {', '.join(missing)} (see "
                "docs/new-algorithm.md)."
            )
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as error:
            raise _keyword_error(owner, signature, kwargs, error) from None
        bound.apply_defaults()
        for field in fields.values():
            value = bound.arguments[field.name] if field.keyword else field.default
            setattr(self, field.name, field.check(owner, value) if field.keyword else value)
        self.__post_init__()

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    __init__.__annotations__ = {f.name: f.type for f in keywords} | {"return": None}
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    __init__.__doc__ = f"Construct {cls.__name__} (keywords: see the class docstring)."
    _GENERATED.add(__init__)
    return __init__


def _docstring(cls: type[Hyperparams]) -> str:
    """The class's own docstring followed by the generated ``Args:`` table."""
    own = inspect.cleandoc(vars(cls).get("__doc__") or "")
    entries = [f.describe() for f in cls.__hyperparams__.values() if f.keyword]
    if not entries:
        return own
    table = "\n".join(f"    {entry}" for entry in entries)
    return f"{own}\n\nArgs:\n{table}\n" if own else f"Args:\n{table}\n"


def _default_text(value: object) -> str:
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    return repr(value)


def _allows_none(annotation: object) -> bool:
    return annotation is None or type(None) in typing.get_args(annotation)


def _type_text(annotation: object) -> str:
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return str(annotation).replace("typing.", "").replace("collections.abc.", "")


def _valid_text(valid: object) -> str:
    if valid is None:
        return ""
    if isinstance(valid, Range | DescribedCheck):
        return str(valid) if isinstance(valid, Range) else valid.description
    return ""


def _keyword_error(
    owner: str, signature: inspect.Signature, kwargs: Mapping[str, object], error: TypeError
) -> TypeError:
    """Python's message for a bad call, naming the class and the nearest keywords."""
    names = list(signature.parameters)[1:]
    unknown = [name for name in kwargs if name not in signature.parameters]
    if not unknown:
        return TypeError(f"{owner}(): {error}")
    hints = [
        f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name)
        for name in unknown
        for close in [difflib.get_close_matches(name, names, n=1)]
    ]
    return TypeError(f"{owner}() got unexpected keyword argument(s) {', '.join(hints)}")


def _is_check(valid: object) -> bool:
    """Whether ``valid`` is a check function (it also gets None), not a :class:`Range`."""
    return valid is not None and not isinstance(valid, Range)
