"""The package's import graph: no circle, and every import goes down the README's tree.

Every module of ``rlpyt/`` is parsed (not imported); each ``import`` of an ``rlpyt`` module is an
edge, wherever it stands: at module level, under ``if TYPE_CHECKING`` (the type checker follows
it, and the design has the arrow) or inside a function (a deferred import is still a
dependency). ``from rlpyt.x import y`` is an edge to ``rlpyt.x.y`` when that is a module, else to
``rlpyt.x``. A module's *box* is its top-level package under ``rlpyt`` (``rlpyt.samplers.serial``
is in ``samplers``); top-level modules (``protocols``, ``plot``) are boxes of their own.
``rlpyt/cli`` has a finer check of its own pipeline in ``tests/unit/cli/test_import_graph.py``.
"""

import ast
import pathlib

import pytest

import rlpyt

PACKAGE = pathlib.Path(rlpyt.__file__).parent

# The README's tree, bottom up. A module may import its own box and the boxes of lower layers;
# two boxes on one layer are siblings and import neither each other nor anything above them.
LAYERS = (
    ("rlpyt",),  # the root package: ``__version__`` and nothing else
    ("utils",),  # collections, buffers, logging, launching: every box may use them
    ("spaces",),  # IntBox, FloatBox, Composite
    ("envs", "models", "distributions"),  # envs use spaces; models and distributions use torch
    ("protocols",),  # the seams name envs, distributions and the records in utils
    ("agents",),  # models + distributions, sized by the env spaces
    ("replays",),  # store agent inputs and samples for the replay algorithms
    ("algos", "samplers"),  # optimize agents from samples / fill samples by stepping envs
    ("runners",),  # a runner uses samplers, agents and algorithms
    ("plot",),  # progress.csv curves
    ("compare",),  # aggregates over seeds; draws with plot
    ("cli", "experiments"),  # the command composes everything; configs are data on top
    ("__main__",),  # python -m rlpyt: the command
)

# Edges that break the layer rule on purpose: (importing module, imported module) -> why.
LAYER_EXCEPTIONS: dict[tuple[str, str], str] = {}

# Families under one box are siblings: one family imports the box's shared modules, never
# another family (what two families share moves down into the box).
FAMILIES = {
    "agents": ("pg", "dqn", "qpg"),
    "algos": ("pg", "dqn", "qpg"),
    "models": ("pg", "dqn", "qpg"),
    "replays": ("non_sequence", "sequence"),
    "samplers": ("serial", "parallel"),
}

# Sideways imports between families that stay, each with its reason.
FAMILY_EXCEPTIONS: dict[tuple[str, str], str] = {}


def module_names(root=PACKAGE):
    """Dotted name -> (path, is a package) for every ``.py`` file under ``root``."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def imported_modules(node, module, is_package, modules):
    """The rlpyt modules one ``import`` statement names (the nearest enclosing module)."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:  # relative: ``from . import x`` / ``from ..y import x``
            package = module.split(".")[: len(module.split(".")) - (not is_package)]
            package = package[: len(package) - node.level + 1]
            base = ".".join(package + ([base] if base else []))
        targets = [f"{base}.{alias.name}" for alias in node.names]
    found = []
    for target in targets:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target:
            found.append(target)
    return found


def import_graph(root=PACKAGE):
    """Module -> sorted list of the rlpyt modules it imports (itself left out)."""
    modules = module_names(root)
    graph = {}
    for module, (path, is_package) in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges.update(imported_modules(node, module, is_package, modules))
        edges.discard(module)
        graph[module] = sorted(edges)
    return graph


def cycles(graph):
    """Each circle of imports as a chain ``[a, b, ..., a]``, one per strongly connected part."""
    index, low, stack, on_stack, parts = {}, {}, [], set(), []

    def connect(node):  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part = []
            while not part or part[-1] != node:
                part.append(stack.pop())
                on_stack.discard(part[-1])
            if len(part) > 1:
                parts.append(set(part))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [chain_through(graph, part) for part in parts]


def chain_through(graph, part):
    """One closed path through a strongly connected set of modules (breadth-first)."""
    start = min(part)
    came_from, frontier = {start: None}, [start]
    while frontier:
        node = frontier.pop(0)
        for target in graph[node]:
            if target == start:
                chain = [node]
                while came_from[chain[-1]] is not None:
                    chain.append(came_from[chain[-1]])
                return [*reversed(chain), start]
            if target in part and target not in came_from:
                came_from[target] = node
                frontier.append(target)
    raise AssertionError(f"{part} is not strongly connected")


def box(module):
    """``rlpyt.samplers.serial.sampler`` -> ``samplers``; ``rlpyt`` -> ``rlpyt``."""
    return module.split(".")[1] if "." in module else module


def layer_of(name):
    return next(i for i, layer in enumerate(LAYERS) if name in layer)


def upward_imports(graph):
    """``module -> target`` for every import of a box on the same layer or a higher one."""
    found = []
    for module, targets in graph.items():
        for target in targets:
            source, dest = box(module), box(target)
            if source != dest and layer_of(dest) >= layer_of(source):
                if (module, target) not in LAYER_EXCEPTIONS:
                    found.append(f"{module} ({source}) -> {target} ({dest})")
    return sorted(found)


def family(module):
    """``rlpyt.algos.qpg.sac`` -> ``("algos", "qpg")``; None outside the families."""
    parts = module.split(".")
    if len(parts) > 2 and parts[1] in FAMILIES and parts[2] in FAMILIES[parts[1]]:
        return parts[1], parts[2]
    return None


def sideways_imports(graph):
    """``module -> target`` for every import from one family into a sibling family."""
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if family(module) and family(target) and family(module)[0] == family(target)[0]
        if family(module) != family(target) and (module, target) not in FAMILY_EXCEPTIONS
    )


@pytest.fixture(scope="module")
def graph():
    """The package's import graph, parsed once for this file."""
    return import_graph()


def test_every_box_has_a_layer_and_the_graph_reaches_them(graph):
    boxes = {box(module) for module in graph}
    assert boxes == {name for layer in LAYERS for name in layer}, boxes
    assert "rlpyt.samplers.collections" in graph["rlpyt.samplers.serial.sampler"]
    assert len(graph) > 200


def test_the_import_graph_has_no_circle(graph):
    found = cycles(graph)
    assert not found, "\n".join(" -> ".join(chain) for chain in found)


def stale_exceptions(graph, exceptions):
    """The allowed edges the code no longer has (their entries should go)."""
    return [f"{m} -> {t}" for m, t in exceptions if t not in graph.get(m, ())]


def test_no_module_imports_from_a_box_above_it(graph):
    found = upward_imports(graph)
    assert not found, "\n".join(found)
    assert not stale_exceptions(graph, LAYER_EXCEPTIONS)


def test_no_family_imports_from_a_sibling_family(graph):
    found = sideways_imports(graph)
    assert not found, "\n".join(found)
    assert not stale_exceptions(graph, FAMILY_EXCEPTIONS)


def planted_package(tmp_path, files):
    """A small ``rlpyt`` tree under ``tmp_path``: dotted name -> source."""
    for name, source in files.items():
        path = tmp_path.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return tmp_path / "rlpyt"


def test_the_checks_find_planted_circles_and_upward_imports(tmp_path):
    root = planted_package(
        tmp_path,
        {
            "rlpyt.__init__": "",
            "rlpyt.utils.__init__": "",
            "rlpyt.utils.a": "def f():\n    from rlpyt.envs import b\n",
            "rlpyt.envs.__init__": "",
            "rlpyt.envs.b": "from rlpyt.utils.c import x\nfrom rlpyt.models import d\n",
            "rlpyt.utils.c": "from . import a\nx = 1\n",
            "rlpyt.models.__init__": "",
            "rlpyt.models.d": "import rlpyt.models.d\n",
            "rlpyt.agents.__init__": "",
            "rlpyt.agents.pg.__init__": "",
            "rlpyt.agents.pg.e": "from ..dqn.f import y\n",
            "rlpyt.agents.dqn.__init__": "",
            "rlpyt.agents.dqn.f": "from rlpyt.agents import base\ny = 2\n",
            "rlpyt.agents.base": "",
        },
    )
    planted = import_graph(root)
    assert planted["rlpyt.utils.c"] == ["rlpyt.utils.a"]  # ``from . import a`` is the module
    assert planted["rlpyt.models.d"] == []  # itself
    assert cycles(planted) == [["rlpyt.envs.b", "rlpyt.utils.c", "rlpyt.utils.a", "rlpyt.envs.b"]]
    assert upward_imports(planted) == [
        "rlpyt.envs.b (envs) -> rlpyt.models.d (models)",
        "rlpyt.utils.a (utils) -> rlpyt.envs.b (envs)",
    ]
    assert sideways_imports(planted) == ["rlpyt.agents.pg.e -> rlpyt.agents.dqn.f"]
    gone = {("rlpyt.utils.a", "rlpyt.models.d")}
    assert stale_exceptions(planted, gone) == ["rlpyt.utils.a -> rlpyt.models.d"]
