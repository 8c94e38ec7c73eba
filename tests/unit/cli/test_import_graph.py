"""The command line is a one-way pipeline: no import circle inside ``rlpyt/cli``, no private names.

Every ``import`` of a ``rlpyt.cli`` module is an edge, at module level or inside a function
(a deferred import is still a dependency); the graph must be acyclic, and no module may import
another one's ``_private`` names.
"""

import ast
import pathlib

import rlpyt.cli

CLI = pathlib.Path(rlpyt.cli.__file__).parent


def cli_imports():
    """Module name -> [(imported rlpyt.cli module, names imported from it)]."""
    graph = {}
    for path in sorted(CLI.glob("*.py")):
        module = f"rlpyt.cli.{path.stem}"
        edges = []
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                target = node.module
                if target == "rlpyt.cli":  # from rlpyt.cli import sweep_run
                    edges += [(f"rlpyt.cli.{a.name}", []) for a in node.names]
                elif target.startswith("rlpyt.cli."):
                    edges.append((target, [a.name for a in node.names]))
            elif isinstance(node, ast.Import):
                edges += [(a.name, []) for a in node.names if a.name.startswith("rlpyt.cli.")]
        graph[module] = edges
    return graph


def find_cycle(graph):
    """One cycle as a list of modules, or None (depth-first search)."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target, _ in graph.get(node, []):
            if state.get(target) == "open":
                return stack[stack.index(target) :] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in graph:
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_cli_import_graph_has_no_circle():
    graph = cli_imports()
    assert "rlpyt.cli.compose" in graph and "rlpyt.cli.registry" in graph
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_cycle_finder_finds_a_planted_circle():
    graph = {"a": [("b", [])], "b": [("c", [])], "c": [("a", [])], "d": [("a", [])]}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": [("b", [])], "b": []}) is None


def test_no_private_names_are_imported_across_cli_modules():
    private = [
        f"{module} imports {name} from {target}"
        for module, edges in cli_imports().items()
        for target, names in edges
        for name in names
        if name.startswith("_")
    ]
    assert not private, private


def test_the_pipeline_stages_import_only_earlier_stages():
    """registry, envs and spec import no other stage; resolve none after it; and so on."""
    order = ["spec", "registry", "envs", "overrides", "resolve", "config", "compose"]
    graph = cli_imports()
    for i, stage in enumerate(order):
        later = {f"rlpyt.cli.{name}" for name in order[i + 1 :]}
        imported = {target for target, _ in graph[f"rlpyt.cli.{stage}"]}
        assert not imported & later, f"{stage} imports a later stage: {imported & later}"
